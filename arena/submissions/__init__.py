"""Bot submissions from strangers: authors and tokens, uploads, safe unpacking, a
sandboxed build and conformance check, versions that replace each other in the ladder.

Modules: :mod:`unpack` (archives), :mod:`build` (the sandboxed build), :mod:`pipeline`
(one submission's check, start to verdict), :mod:`worker` (checks in the background),
:mod:`sessions` and :mod:`service` (what the web pages and API of
:mod:`arena.web.submissions` use), :mod:`layout` (the data folder), :mod:`client`
(``arena submit``'s packing and HTTP).
"""
