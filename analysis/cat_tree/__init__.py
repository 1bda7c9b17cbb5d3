"""Cat Tree's oracle (the best plan a fully known deal allows), its upper bounds and the
shipped reference deals; ``docs/cat_tree_oracle.md`` explains each.

* ``oracle``: ``solve(deck)``, the beam search; ``percent_of_oracle``, ``deals``;
* ``bound``, ``grid_bound``: scores no game on a deal can beat;
* ``program``: CP-SAT's better plans (the ``oracle`` extra);
* ``transplant``: a deal's best-known tree built on another deal;
* ``reference``: the reference deals' best-known plans (``reference_deals.json``);
* ``build``: builds and improves that file (``python -m catzoo.analysis.cat_tree.build``).
"""
