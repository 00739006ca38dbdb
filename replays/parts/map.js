// Names on a battle map: where each token's name goes, as the served pages and `initiative view`
// place them (a part shared by both). Greedily, the most important first (the lowest `rank`,
// then the lowest `index`): each at the first of a list of spots around its token where it
// overlaps no name already placed and no token and stays inside the map, keeping clear of the
// moves' lines when it can; further out, a line leads from the token to it. When no spot around
// it is free (and the map is not crowded past 60 tokens), the free place nearest the token.
// `toks`: [{id, cx, cy, r, w, h, rank, index}] in the map's units (w, h: the name's box);
// `W`, `H`: the map; `trails`: segments [x1, y1, x2, y2]. Returns a Map from id to
// {x, y, w, h, leader} (leader: [x1, y1, x2, y2] from the token's edge to the name, or null);
// a name that finds no room anywhere is not in it (its token still says it on hover).
function placeMapNames(toks, W, H, trails) {
  const GAP = 2;
  const overlaps = (a, b) => a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP;
  const inside = (b) => b.x >= 1 && b.y >= 1 && b.x + b.w <= W - 1 && b.y + b.h <= H - 1;
  function spots(t, w, h) {
    const R = t.r + 2, g = 3, out = [];
    for (let ring = 0; ring < 6; ring++) {
      const e = ring * (h + 2);
      out.push(
        [t.cx + R + g + e, t.cy - h / 2], [t.cx - R - g - w - e, t.cy - h / 2],
        [t.cx + 0.3 * R + e, t.cy - R - g - h - e], [t.cx + 0.3 * R + e, t.cy + R + g + e],
        [t.cx - 0.3 * R - w - e, t.cy - R - g - h - e], [t.cx - 0.3 * R - w - e, t.cy + R + g + e],
        [t.cx - w / 2, t.cy - R - g - h - e], [t.cx - w / 2, t.cy + R + g + e],
        [t.cx + R + g + e, t.cy - h / 2 - (h + 2)], [t.cx + R + g + e, t.cy + h / 2 + 2],
        [t.cx - R - g - w - e, t.cy - h / 2 - (h + 2)], [t.cx - R - g - w - e, t.cy + h / 2 + 2]);
      for (let i = out.length - 12; i < out.length; i++) out[i].push(ring > 0 || i % 12 >= 8);
    }
    return out;
  }
  // Does segment [x1, y1, x2, y2] pass through box b (points every 3 units)?
  function crosses(seg, b) {
    const [x1, y1, x2, y2] = seg, n = Math.ceil(Math.hypot(x2 - x1, y2 - y1) / 3);
    for (let i = 0; i <= n; i++) {
      const x = x1 + ((x2 - x1) * i) / n, y = y1 + ((y2 - y1) * i) / n;
      if (x > b.x - GAP && x < b.x + b.w + GAP && y > b.y - GAP && y < b.y + b.h + GAP) return true;
    }
    return false;
  }
  const blocked = toks.map((t) => ({ x: t.cx - t.r - 2, y: t.cy - t.r - 2, w: 2 * t.r + 4, h: 2 * t.r + 4 }));
  const order = toks.slice().sort((a, b) => a.rank - b.rank || a.index - b.index);
  const placed = [], where = new Map();
  const free = (b) => inside(b) && !placed.some((p) => overlaps(p, b)) && !blocked.some((p) => overlaps(p, b));
  for (const t of order) {
    let best = null, lead = false;
    // First a spot that keeps the moves' lines clear too, then one that may cross them.
    for (const clear of [true, false]) {
      for (const [x, y, far] of spots(t, t.w, t.h)) {
        const b = { x: x, y: y, w: t.w, h: t.h };
        if (free(b) && !(clear && trails.some((seg) => crosses(seg, b)))) { best = b; lead = far; break; }
      }
      if (best) break;
    }
    if (!best && toks.length <= 60) {
      let dist = Infinity;
      for (let y = 1; y + t.h <= H - 1; y += 5) {
        for (let x = 1; x + t.w <= W - 1; x += 5) {
          const b = { x: x, y: y, w: t.w, h: t.h };
          const d = Math.hypot(x + t.w / 2 - t.cx, y + t.h / 2 - t.cy);
          if (d < dist && free(b)) { best = b; dist = d; }
        }
      }
      lead = true;
    }
    if (!best) continue;
    placed.push(best);
    best.leader = null;
    if (lead) {
      const px = Math.max(best.x, Math.min(t.cx, best.x + best.w)), py = Math.max(best.y, Math.min(t.cy, best.y + best.h));
      const d = Math.hypot(px - t.cx, py - t.cy) || 1;
      best.leader = [t.cx + ((px - t.cx) / d) * (t.r + 1), t.cy + ((py - t.cy) / d) * (t.r + 1), px, py];
    }
    where.set(t.id, best);
  }
  return where;
}
