"""Reconciliation, case by case: duplicates, near duplicates, updates of an exclusive slot (in and
out of order), negations, and idempotence — with the real local model's vectors, so the default
thresholds are tested on what they will see."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from app.ai.fact_extractor import FactCandidate, FactKind
from app.ai.local_embedder import LocalEmbedder
from app.config import Settings
from app.facts.reconcile import (
    Add,
    Current,
    Invalidate,
    Known,
    Mention,
    Thresholds,
    Vector,
    displaces,
    normalize,
    reconcile,
)

T0 = datetime(2026, 11, 1, tzinfo=UTC)
TH = Thresholds(merge=Settings().fact_merge_threshold, negation=Settings().fact_negation_threshold)


def vec(embedder: LocalEmbedder, text: str) -> Vector:
    return np.asarray(embedder.encode([text])[0], dtype=np.float32)


def cand(
    content: str,
    *,
    subject: str | None = None,
    exclusive: bool = False,
    negated: bool = False,
    at: datetime = T0,
    source: uuid.UUID | None = None,
    kind: FactKind = FactKind.other,
    correction: bool = False,
    corrects: str | None = None,
) -> FactCandidate:
    return FactCandidate(
        correction=correction,
        corrects=corrects,
        content=content,
        kind=kind,
        subject=subject,
        exclusive=exclusive,
        negated=negated,
        importance=0.6,
        topics=(),
        valid_from=at,
        source_message_ids=(source or uuid.uuid4(),),
    )


def current(
    embedder: LocalEmbedder,
    content: str,
    *,
    subject: str | None = None,
    exclusive: bool = False,
    at: datetime = T0,
    sources: Sequence[uuid.UUID] = (),
) -> Current:
    return Current(
        fact_id=uuid.uuid4(),
        content=content,
        subject=subject,
        exclusive=exclusive,
        valid_from=at,
        importance=0.5,
        source_message_ids=tuple(sources) or (uuid.uuid4(),),
        vector=vec(embedder, content),
    )


def run(embedder: LocalEmbedder, cands: Sequence[FactCandidate], cur: Sequence[Current]) -> list[object]:
    return list(reconcile([(c, vec(embedder, c.content)) for c in cands], cur, TH))


def test_normalize_ignores_case_spacing_and_final_punctuation() -> None:
    assert normalize("  Lives in   LISBON. ") == normalize("lives in lisbon") == "lives in lisbon"


def test_a_new_fact_is_added(embedder: LocalEmbedder) -> None:
    ops = run(embedder, [cand("Likes jazz.", subject="likes:jazz")], [])
    assert len(ops) == 1 and isinstance(ops[0], Add)


def test_an_exact_duplicate_changes_nothing_but_counts_a_new_mention(embedder: LocalEmbedder) -> None:
    f = current(embedder, "Likes jazz.", subject="likes:jazz")
    later = T0 + timedelta(days=3)
    ops = run(embedder, [cand("likes jazz", subject="likes:jazz", at=later)], [f])
    assert len(ops) == 1 and isinstance(ops[0], Mention)
    assert ops[0].merged is False and ops[0].new_content == "Likes jazz." and ops[0].at == later


def test_the_same_source_read_again_changes_nothing(embedder: LocalEmbedder) -> None:
    source = uuid.uuid4()
    f = current(embedder, "Likes jazz.", subject="likes:jazz", sources=[source])
    assert run(embedder, [cand("Likes jazz.", subject="likes:jazz", source=source)], [f]) == []


def test_a_near_duplicate_is_merged_with_the_more_specific_wording(embedder: LocalEmbedder) -> None:
    f = current(embedder, "Is allergic to peanuts.")
    ops = run(embedder, [cand("Is severely allergic to peanuts.")], [f])
    assert len(ops) == 1 and isinstance(ops[0], Mention) and ops[0].merged
    assert ops[0].new_content == "Is severely allergic to peanuts."


def test_a_new_value_of_an_exclusive_slot_supersedes_the_old(embedder: LocalEmbedder) -> None:
    f = current(embedder, "Lives in Lisbon.", subject="home", exclusive=True)
    moved = T0 + timedelta(days=30)
    ops = run(embedder, [cand("Lives in Porto.", subject="home", exclusive=True, at=moved)], [f])
    adds = [o for o in ops if isinstance(o, Add)]
    ends = [o for o in ops if isinstance(o, Invalidate)]
    assert len(adds) == 1 and len(ends) == 1
    assert ends[0].fact_id == f.fact_id and ends[0].at == moved
    assert ends[0].superseded_by == adds[0].fact_id and ends[0].reason == "superseded"


def test_similar_statements_of_different_slots_are_not_merged(embedder: LocalEmbedder) -> None:
    f = current(embedder, "Has a sister named Maria.", subject="sibling:maria")
    ops = run(embedder, [cand("Has a sister named Marta.", subject="sibling:marta")], [f])
    assert len(ops) == 1 and isinstance(ops[0], Add) and ops[0].invalid_at is None


def test_a_close_but_different_value_in_an_exclusive_slot_is_an_update_not_a_merge(
    embedder: LocalEmbedder,
) -> None:
    f = current(embedder, "Lives in Lisbon.", subject="home", exclusive=True)
    ops = run(embedder, [cand("Lives in Lisbon, Portugal.", subject="home", exclusive=True)], [f])
    # Word-superset and close: the same place, said more precisely.
    assert len(ops) == 1 and isinstance(ops[0], Mention)
    ops = run(embedder, [cand("Lives in Porto.", subject="home", exclusive=True)], [f])
    assert {type(o) for o in ops} == {Add, Invalidate}


def test_an_older_value_arriving_late_is_stored_as_already_superseded(embedder: LocalEmbedder) -> None:
    f = current(embedder, "Lives in Porto.", subject="home", exclusive=True, at=T0 + timedelta(days=30))
    ops = run(embedder, [cand("Lives in Lisbon.", subject="home", exclusive=True, at=T0)], [f])
    assert len(ops) == 1 and isinstance(ops[0], Add)
    assert ops[0].invalid_at == f.valid_from and ops[0].superseded_by == f.fact_id


def test_a_negation_ends_the_fact_of_its_subject(embedder: LocalEmbedder) -> None:
    f = current(embedder, "Works at Google.", subject="employer", exclusive=True)
    later = T0 + timedelta(days=5)
    ops = run(embedder, [cand("Works at Google.", subject="employer", negated=True, at=later)], [f])
    assert len(ops) == 1 and isinstance(ops[0], Invalidate)
    assert ops[0].fact_id == f.fact_id and ops[0].reason == "negated" and ops[0].at == later


def test_a_negation_without_a_subject_ends_the_closest_fact_only(embedder: LocalEmbedder) -> None:
    meat = current(embedder, "Eats meat.")
    jazz = current(embedder, "Likes jazz.")
    ops = run(embedder, [cand("Eats meat.", negated=True)], [meat, jazz])
    assert [o.fact_id for o in ops if isinstance(o, Invalidate)] == [meat.fact_id]


def test_a_negation_of_something_unknown_changes_nothing(embedder: LocalEmbedder) -> None:
    jazz = current(embedder, "Likes jazz.", subject="likes:jazz")
    assert run(embedder, [cand("Plays tennis.", subject="plays:tennis", negated=True)], [jazz]) == []


def test_a_negation_does_not_end_a_fact_that_started_after_it(embedder: LocalEmbedder) -> None:
    f = current(embedder, "Works at Google.", subject="employer", exclusive=True, at=T0 + timedelta(days=9))
    assert run(embedder, [cand("Works at Google.", subject="employer", negated=True, at=T0)], [f]) == []


def test_candidates_of_one_batch_reconcile_with_each_other(embedder: LocalEmbedder) -> None:
    ops = run(
        embedder,
        [
            cand("Lives in Lisbon.", subject="home", exclusive=True, at=T0),
            cand("Lives in Porto.", subject="home", exclusive=True, at=T0 + timedelta(days=1)),
            cand("Lives in Porto.", subject="home", exclusive=True, at=T0 + timedelta(days=2)),
        ],
        [],
    )
    kinds = [type(o).__name__ for o in ops]
    assert kinds == ["Add", "Invalidate", "Add", "Mention"]


def test_reconciling_the_result_again_changes_nothing(embedder: LocalEmbedder) -> None:
    source = uuid.uuid4()
    first = [cand("Lives in Lisbon.", subject="home", exclusive=True, source=source)]
    ops = run(embedder, first, [])
    add = ops[0]
    assert isinstance(add, Add)
    stored = Current(
        fact_id=add.fact_id,
        content=add.candidate.content,
        subject="home",
        exclusive=True,
        valid_from=T0,
        importance=0.6,
        source_message_ids=(source,),
        vector=add.vector,
    )
    assert run(embedder, first, [stored]) == []


def test_a_statement_already_read_is_skipped_even_once_it_has_ended(embedder: LocalEmbedder) -> None:
    source = uuid.uuid4()
    porto = current(embedder, "Lives in Porto.", subject="home", exclusive=True, at=T0 + timedelta(days=30))
    # "Lives in Lisbon." from `source` was stored and later superseded by Porto: reading it again
    # must not store it a second time (as an old value arriving late).
    known = [
        Known(subject="home", content="Lives in Lisbon.", source_message_ids=frozenset({source})),
        Known(
            subject="home", content="Lives in Porto.", source_message_ids=frozenset(porto.source_message_ids)
        ),
    ]
    again = cand("Lives in Lisbon.", subject="home", exclusive=True, source=source)
    assert list(reconcile([(again, vec(embedder, again.content))], [porto], TH, known)) == []
    # A new message saying it is new information (an old value, read late).
    fresh = cand("Lives in Lisbon.", subject="home", exclusive=True)
    ops = list(reconcile([(fresh, vec(embedder, fresh.content))], [porto], TH, known))
    assert len(ops) == 1 and isinstance(ops[0], Add) and ops[0].superseded_by == porto.fact_id


# --- issue 12: negations reach the thing, corrections are retroactive, opposites exclude ---------


def test_no_longer_eating_a_food_ends_liking_it(embedder: LocalEmbedder) -> None:
    fish = current(embedder, "Likes fish.", subject="likes:fish")
    ops = run(
        embedder, [cand("Eats fish.", subject="eats:fish", negated=True, at=T0 + timedelta(days=3))], [fish]
    )
    assert [(type(o).__name__, getattr(o, "fact_id", None), getattr(o, "reason", None)) for o in ops] == [
        ("Invalidate", fish.fact_id, "negated")
    ]


def test_not_liking_an_activity_any_more_ends_its_longer_wording(embedder: LocalEmbedder) -> None:
    hiking = current(embedder, "Likes hiking in the mountains.", subject="activity:hiking in mountain")
    jazz = current(embedder, "Likes jazz.", subject="likes:jazz")
    ops = run(
        embedder,
        [cand("Likes hiking.", subject="activity:hiking", negated=True, at=T0 + timedelta(days=1))],
        [hiking, jazz],
    )
    assert [o.fact_id for o in ops if isinstance(o, Invalidate)] == [hiking.fact_id]


def test_opposite_preferences_about_the_same_thing_are_never_both_current(embedder: LocalEmbedder) -> None:
    likes = current(embedder, "Likes hiking in the mountains.", subject="activity:hiking in mountain")
    food = current(embedder, "Likes Italian food.", subject="likes:italian food")
    later = T0 + timedelta(days=5)
    ops = run(
        embedder,
        [
            cand("Dislikes the mountains.", subject="dislikes:mountain", at=later),
            cand("Dislikes spicy food.", subject="dislikes:spicy food", at=later),
        ],
        [likes, food],
    )
    ends = [o for o in ops if isinstance(o, Invalidate)]
    adds = [o for o in ops if isinstance(o, Add)]
    assert [(o.fact_id, o.reason, o.at) for o in ends] == [(likes.fact_id, "contradicted", later)]
    assert ends[0].superseded_by == adds[0].fact_id and len(adds) == 2


def test_a_correction_replaces_the_wrong_value_retroactively(embedder: LocalEmbedder) -> None:
    berlin = current(embedder, "Lives in Berlin.", subject="home", exclusive=True, at=T0)
    said = T0 + timedelta(days=2)
    ops = run(
        embedder,
        [
            cand(
                "Lives in Paris.", subject="home", exclusive=True, at=said, correction=True, corrects="Berlin"
            )
        ],
        [berlin],
    )
    (end,) = [o for o in ops if isinstance(o, Invalidate)]
    (add,) = [o for o in ops if isinstance(o, Add)]
    # Berlin never held: it ends where it began, and Paris holds from then on.
    assert (end.fact_id, end.reason, end.at, end.superseded_by) == (
        berlin.fact_id,
        "corrected",
        T0,
        add.fact_id,
    )
    assert add.candidate.valid_from == T0 and add.invalid_at is None


def test_a_move_still_ends_the_old_home_at_the_move(embedder: LocalEmbedder) -> None:
    berlin = current(embedder, "Lives in Berlin.", subject="home", exclusive=True, at=T0)
    moved = T0 + timedelta(days=30)
    ops = run(embedder, [cand("Lives in Paris.", subject="home", exclusive=True, at=moved)], [berlin])
    (end,) = [o for o in ops if isinstance(o, Invalidate)]
    assert (end.reason, end.at) == ("superseded", moved)


def test_normalize_is_linear_on_runs_of_spaces_and_punctuation() -> None:
    # Was a `[\s.!?;:,]+$` search: quadratic on a long run that does not reach the end.
    assert normalize("Lives  in\tLisbon . ! ") == "lives in lisbon"
    assert normalize(" . " * 3 + "x") == ". . . x"


def test_what_leaves_a_restored_fact_no_room() -> None:
    """A fact that holds again after what ended it lost its source yields to a newer fact of its
    exclusive slot, the same statement said again, or the opposite preference; to nothing else."""

    def fact(content: str, subject: str | None, exclusive: bool = False) -> Current:
        return Current(uuid.uuid4(), content, subject, exclusive, T0, 0.5, (uuid.uuid4(),), None)

    fish = fact("Likes fish.", "likes:fish")
    assert displaces(fact("likes fish", None), fish)
    assert displaces(fact("Dislikes fish.", "dislikes:fish"), fish)
    assert not displaces(fact("Likes jazz.", "likes:jazz"), fish)
    berlin = fact("Lives in Berlin.", "home", exclusive=True)
    assert displaces(fact("Lives in Porto.", "home", exclusive=True), berlin)
    spanish, french = fact("Speaks Spanish.", "language:spanish"), fact("Speaks French.", "language:french")
    assert not displaces(spanish, french)
