"""The table: the seat server (``serve``), its clients (``join``), the GM's desk, the pages and
the wire format they share (docs/protocol.md, docs/table.md).

The command line (:mod:`initiative.cli`) imports what it needs from the modules below; this
package re-exports nothing, so that importing one client never loads the server.
"""
