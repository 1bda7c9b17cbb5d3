"""Builds or improves the Cat Tree reference deals: best-known plans, shipped with catzoo.

For each deal (the decks of games seeded ``--seed``, ``--seed + 1``, ...) it runs the
oracle's search (``oracle.solve``, with its upper bound), then CP-SAT
(``program.improve``) for ``--seconds`` from the search's plan (or, if better, the plan
the file already holds) and as long again from nothing (the two find different trees),
and keeps the best plan, with the deal's bound (``grid_bound.best_bound``, about 25 s a
deal). A deal already in the file keeps its plan unless this run finds a better one, so
running it again with more time only raises the best-known scores; the file is
rewritten atomically after every deal, so a killed run loses at most the deal in
progress.

The file (``analysis/cat_tree/reference_deals.json``) is read by
``catzoo.analysis.cat_tree.reference``, which replays every plan through the rules engine.

With ``--transplant`` it only tries every deal's best-known tree on the other deals
(``catzoo.analysis.cat_tree.transplant``), in passes until none is raised (six minutes),
then the trees of the best score less one cell, with a spare card (fifteen minutes).

Run: ``python -m catzoo.analysis.cat_tree.build [--deals N] [--seed S] [--seconds T]``
(CP-SAT uses two threads; about 2 T + 25 seconds a deal).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

from catzoo.analysis.cat_tree.grid_bound import best_bound
from catzoo.analysis.cat_tree.oracle import deals, percent_of_oracle, solve
from catzoo.analysis.cat_tree.program import improve
from catzoo.analysis.cat_tree.reference import FORMAT, PATH, ReferenceDeal, deck_text, load
from catzoo.analysis.cat_tree.transplant import LIMIT, SPARE_LIMIT, final_grid, transplant
from catzoo.games.cat_tree import CatTreeOptions
from catzoo.training.checkpoint import atomic_write_text


def _save(entries: dict[int, ReferenceDeal]) -> None:
    # one deal a line: a diff of the file shows which deals a run improved
    deals_text = ",\n".join(json.dumps(
        {"seed": d.seed, "deck": deck_text(d.deck), "score": d.score, "bound": d.bound,
         "found_by": d.found_by, "actions": list(d.actions)}) for _, d in sorted(entries.items()))
    atomic_write_text(PATH, f'{{"format": {FORMAT}, "options": "default CatTreeOptions", '
                            f'"deals": [\n{deals_text}\n]}}\n')


def _transplant(entries: dict[int, ReferenceDeal], options) -> None:
    """Each deal's best-known tree built on the other deals (``transplant``): a deal keeps
    a plan that beats its best known, and trees raised this way are tried again. Then
    the trees of the best score, each less one cell with a spare card placed off it."""
    trees = {s: (d.score, final_grid(d.deck, d.actions, options)) for s, d in entries.items()}
    top = max(score for score, _ in trees.values())
    for spare in (0, 1):
        raised = True
        while raised:
            raised = False
            for seed, deal in sorted(entries.items()):
                # the best trees first: a deal keeps the first that builds and beats it
                ranked = sorted((s for s in trees if s != seed and (not spare or
                                                                    trees[s][0] == top)),
                                key=lambda s: -trees[s][0])
                score, plan, index = transplant(
                    deal.deck, [trees[s] for s in ranked], options, above=deal.score,
                    limit=SPARE_LIMIT if spare else LIMIT, spare=spare)
                if plan is None:
                    continue
                less = " less one cell" if spare else ""
                entries[seed] = replace(deal, score=score, actions=plan,
                                        found_by=f"the tree of deal {ranked[index]}{less}")
                trees[seed] = (score, final_grid(deal.deck, plan, options))
                _save(entries)
                raised = not spare  # a tree less one cell is not tried again
                print(f"seed {seed}: {deal.score} -> {score} ({entries[seed].found_by}), "
                      f"bound {deal.bound}", flush=True)
    scores = [e.score for e in entries.values()]
    proven = sum(e.score == e.bound for e in entries.values())
    print(f"{len(entries)} reference deals: best known {sum(scores) / len(scores):.1f} on "
          f"average, {proven} proven optimal")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=40.0,
                        help="CP-SAT seconds per start (two starts a deal)")
    parser.add_argument("--bounds-only", action="store_true",
                        help="only recompute every deal's bound (after the bound changed)")
    parser.add_argument("--transplant", action="store_true",
                        help="only try every deal's best-known tree on the other deals")
    args = parser.parse_args(argv)

    options = CatTreeOptions()
    # the file's plans are replayed before any is kept (a broken file stops the run)
    entries = {d.seed: d for d in load()} if PATH.exists() else {}
    if args.bounds_only:
        if not entries:
            parser.error(f"--bounds-only: no reference deals in {PATH} yet")
        entries = {s: replace(d, bound=best_bound(d.deck, options)) for s, d in entries.items()}
        _save(entries)
        print(f"{len(entries)} bounds recomputed")
        return
    if args.transplant:
        if not entries:
            parser.error(f"--transplant: no reference deals in {PATH} yet")
        _transplant(entries, options)
        return
    searched = {}
    for i, deck in enumerate(deals(args.deals, seed=args.seed, options=options)):
        seed = args.seed + i
        start = time.perf_counter()
        result = solve(deck, options, bound=False)
        searched[seed] = result.score
        best = (result.score, result.actions, "the oracle's search")
        old = entries.get(seed)
        # a second run starts CP-SAT from the plan kept last time when the search's is worse
        start_plan, start_name = result.actions, "from the search's plan"
        if old is not None and old.score > result.score:
            start_plan, start_name = old.actions, "from the best plan known"
        for name, plan in ((start_name, start_plan), ("from nothing", None)):
            found = improve(deck, plan, options, seconds=args.seconds)
            if found.score > best[0]:
                best = (found.score, found.actions, f"CP-SAT {args.seconds:g} s {name}")
        bound = best_bound(deck, options)
        if old is None or best[0] > old.score:
            entries[seed] = ReferenceDeal(seed, deck, best[0], bound, tuple(best[1]), best[2])
        else:
            entries[seed] = replace(old, bound=bound)
        _save(entries)
        kept = entries[seed]
        print(f"seed {seed}: search {result.score}, best known {kept.score} "
              f"({kept.found_by}), bound {bound}  [{time.perf_counter() - start:.0f} s]",
              flush=True)
    scores = [e.score for e in entries.values()]
    bounds = [e.bound for e in entries.values()]
    print(f"{len(entries)} reference deals: best known {sum(scores) / len(scores):.1f} on "
          f"average, bound {sum(bounds) / len(bounds):.1f} "
          f"({percent_of_oracle(scores, bounds):.1f}% of it)")
    known = [entries[s].score for s in searched]
    print(f"the oracle's search on the {len(searched)} deals of this run: "
          f"{percent_of_oracle(list(searched.values()), known):.1f}% of the best known")


if __name__ == "__main__":
    main()
