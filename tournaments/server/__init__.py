"""The league's web front (`arena serve`): its pages and HTTP API (Starlette, served by
Hypercorn's trio worker), asking the league's service (`tournaments.league.service`) alone."""
