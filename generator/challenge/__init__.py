"""The one reader of a challenge directory: challenge.py (pyfile), challenge.html (page) and the
ctypes <-> dtype table (ctypes_table). Nothing else parses those files."""
