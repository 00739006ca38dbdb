// A roll card: one die roll as the served pages and `initiative view` show it (a part shared by
// both). `roll` has purpose, expr, dice (each face), modifier, total, given (by hand) and who
// (a name or an id, or null); `name` turns an id into its name (ids in the purpose too).
function rollCard(roll, name) {
  const make = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const card = make("div", undefined, "roll");
  card.dataset.seq = roll.seq;
  const purpose = String(roll.purpose).replace(/[_.]/g, " ").split(" ").map((w) => name(w)).join(" ");
  const what = make("div", (roll.who ? name(roll.who) + " · " : "") + purpose, "what");
  what.title = what.textContent;  // in full, where the card cuts it short
  card.append(what);
  const line = make("div", undefined, "line");
  for (const face of roll.dice) line.append(make("span", String(face), "die"));
  if (roll.modifier) line.append(make("span", (roll.modifier > 0 ? "+ " : "\u2212 ") + Math.abs(roll.modifier), "mod"));
  line.append(make("span", String(roll.total), "total"));
  card.append(line);
  const foot = make("div", undefined, "line");
  foot.append(make("span", roll.expr, "expr"), make("span", roll.given ? "given by hand" : "rolled", "how" + (roll.given ? " given" : "")));
  card.append(foot);
  return card;
}
