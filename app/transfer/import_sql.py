"""The import's SQL: staging tables, id placement and the set-based writes (one statement per table).

Staged rows live in temporary tables of the import's transaction (dropped at its end). Every write
below reads them in one statement, so a user of 10,000 messages costs the same few round trips as
a user of ten. `:t` and `:u` are always the target tenant and user.
"""

from __future__ import annotations

from sqlalchemy import TextClause, text

from app.jobs.due import due_sql
from app.sessions import counters

# Columns of each staging table, as the importer sends them (JSON, via jsonb_to_recordset).
STAGES: dict[str, str] = {
    "imp_sessions": "line int, session_id text, metadata jsonb, last_seq bigint, extracted_seq bigint, "
    "created_at timestamptz, updated_at timestamptz, ended_at timestamptz",
    "imp_messages": "line int, message_id uuid, session_id text, seq bigint, role text, name text, "
    "content text, metadata jsonb, token_count int, created_at timestamptz, updated_at timestamptz",
    "imp_summaries": "line int, summary_id uuid, session_id text, from_seq bigint, to_seq bigint, "
    "message_count int, content text, token_count int, provider text, created_at timestamptz",
    "imp_facts": "line int, fact_id uuid, content text, kind text, subject text, exclusive boolean, "
    "topics text[], importance float8, metadata jsonb, actor text, source_message_ids uuid[], "
    "session_id text, valid_from timestamptz, invalid_at timestamptz, superseded_by uuid, "
    "mention_count int, last_mentioned_at timestamptz, last_used_at timestamptz, "
    "created_at timestamptz, updated_at timestamptz, speaker text",
    "imp_events": "line int, fact_id uuid, event text, old_content text, new_content text, actor text, "
    "reason text, related_fact_id uuid, source_message_ids uuid[], created_at timestamptz",
}
# Staged rows whose text may be sealed also carry the keyword index of their plain text
# (`plain_tsv`, filled by app/transfer/sealing.py when ENGRAM_ENCRYPTION_KEYWORD_INDEX=keep): a last
# column that the file's rows leave NULL.
INDEXED = ("imp_messages", "imp_summaries", "imp_facts")
SCRATCH = (
    "CREATE TEMP TABLE imp_map (kind text, old uuid, new uuid, PRIMARY KEY (kind, old)) ON COMMIT DROP",
    "CREATE TEMP TABLE imp_touched (session_id text PRIMARY KEY) ON COMMIT DROP",
)


def create_stage(table: str) -> TextClause:
    extra = ", plain_tsv tsvector" if table in INDEXED else ""
    return text(f"CREATE TEMP TABLE {table} ({STAGES[table]}{extra}) ON COMMIT DROP")


def stage(table: str) -> TextClause:
    return text(
        f"INSERT INTO {table} SELECT * FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r({STAGES[table]})"
    )


# The first line that repeats an id (or a seq of a session) of an earlier line.
DUPLICATE = text(
    """
    SELECT line, field FROM (
      SELECT line, 'message_id' AS field, row_number() OVER (PARTITION BY message_id ORDER BY line) AS n
        FROM imp_messages
      UNION ALL SELECT line, 'seq', row_number() OVER (PARTITION BY session_id, seq ORDER BY line)
        FROM imp_messages
      UNION ALL SELECT line, 'summary_id', row_number() OVER (PARTITION BY summary_id ORDER BY line)
        FROM imp_summaries
      UNION ALL SELECT line, 'to_seq', row_number() OVER (PARTITION BY session_id, to_seq ORDER BY line)
        FROM imp_summaries
      UNION ALL SELECT line, 'fact_id', row_number() OVER (PARTITION BY fact_id ORDER BY line) FROM imp_facts
    ) d WHERE n > 1 ORDER BY line LIMIT 1
    """
)

CREATE_USER = text(
    "INSERT INTO users (tenant_id, user_id, metadata, created_at, updated_at) "
    "VALUES (:t, :u, CAST(:md AS jsonb), coalesce(:c, now()), coalesce(:up, :c, now())) "
    "ON CONFLICT DO NOTHING RETURNING 1"
)
# Held to the end, so a purge of the user waits for the import instead of racing its inserts.
KEEP_USER = text("SELECT 1 FROM users WHERE tenant_id = :t AND user_id = :u FOR KEY SHARE")

# New sessions start with no watermarks (WATERMARKS sets them). `cache_gen` starts at a value of
# this import's own: the Redis entry of a deleted session with the same id and created_at (the
# same file imported again after a delete) must never match the new one.
CREATE_SESSIONS = text(
    """
    WITH ins AS (
      INSERT INTO sessions (tenant_id, session_id, user_id, metadata, created_at, updated_at, ended_at,
                            cache_gen)
      SELECT :t, i.session_id, :u, i.metadata, coalesce(i.created_at, now()),
             coalesce(i.updated_at, i.created_at, now()), i.ended_at, :gen
      FROM imp_sessions i ORDER BY i.session_id
      ON CONFLICT DO NOTHING RETURNING session_id
    )
    INSERT INTO imp_touched SELECT session_id FROM ins
    """
)
# Every session of the file, locked in one order (appends and worker steps wait), with its owner.
LOCK_SESSIONS = text(
    "SELECT i.line, i.session_id, s.user_id = :u AS mine FROM imp_sessions i "
    "JOIN sessions s ON s.tenant_id = :t AND s.session_id = i.session_id "
    "ORDER BY i.session_id FOR UPDATE OF s"
)
# A fact's session (where it was first read from) must be the target user's: one of the file's
# (LOCK_SESSIONS checked their owner) or one the user already has. A name no session holds is kept
# as it is, like the name of a deleted session. Search filters facts by session, so a fact naming
# another user's session would show up in that user's session.
FOREIGN_FACT_SESSION = text(
    "SELECT i.line, i.session_id FROM imp_facts i "
    "JOIN sessions s ON s.tenant_id = :t AND s.session_id = i.session_id "
    "WHERE s.user_id <> :u ORDER BY i.line LIMIT 1"
)
# --- ids ------------------------------------------------------------------------------------------
# Message, summary and fact ids are global keys, so whether an id is free says whether another
# tenant holds it. The placement therefore never depends on that: each id of the file (defined or
# only referenced) keeps its value only where it already belongs to the target user (imported
# before: present); every other id, free or taken, goes to the first of its DERIVED candidates
# that belongs to the target user or is free. A derived candidate is taken by someone else only by
# a SHA-256 collision; such a candidate is passed over without being read or changed.
COLLECT_IDS = text(
    """
    INSERT INTO imp_map (kind, old)
    SELECT 'm', message_id FROM imp_messages
    UNION SELECT 'm', unnest(source_message_ids) FROM imp_facts
    UNION SELECT 'm', unnest(source_message_ids) FROM imp_events
    UNION SELECT 's', summary_id FROM imp_summaries
    UNION SELECT 'f', fact_id FROM imp_facts
    UNION SELECT 'f', superseded_by FROM imp_facts WHERE superseded_by IS NOT NULL
    UNION SELECT 'f', fact_id FROM imp_events
    UNION SELECT 'f', related_fact_id FROM imp_events WHERE related_fact_id IS NOT NULL
    """
)
# A version-8 UUID from SHA-256 of (target tenant, target user, old id, try): the same file into
# the same place always derives the same ids, so a second import finds them present.
DERIVED = (
    "(SELECT CAST(encode(set_byte(set_byte(h, 6, (get_byte(h, 6) & 15) | 128), 8, "
    "(get_byte(h, 8) & 63) | 128), 'hex') AS uuid) FROM (SELECT substr(sha256(convert_to("
    ":t || chr(31) || :u || chr(31) || CAST(m.old AS text) || chr(31) || CAST(k AS text), 'UTF8')), "
    "1, 16) AS h) d)"
)
# 0: the target user's, 1: free, 2: someone else's. For facts, a history in the target tenant
# counts too (a deleted fact's events stay), so two users' histories never share a fact id.
_OWNER = """
    CASE m.kind
    WHEN 'm' THEN (SELECT CASE WHEN x.tenant_id = :t AND x.user_id = :u THEN 0 ELSE 2 END
                   FROM messages x WHERE x.message_id = c.id)
    WHEN 's' THEN (SELECT CASE WHEN x.tenant_id = :t AND x.user_id = :u THEN 0 ELSE 2 END
                   FROM summaries x WHERE x.summary_id = c.id)
    ELSE CASE
      WHEN EXISTS (SELECT 1 FROM facts x
                   WHERE x.fact_id = c.id AND (x.tenant_id <> :t OR x.user_id <> :u))
        OR EXISTS (SELECT 1 FROM fact_events x
                   WHERE x.tenant_id = :t AND x.fact_id = c.id AND x.user_id <> :u)
        THEN 2
      WHEN EXISTS (SELECT 1 FROM facts x WHERE x.fact_id = c.id)
        OR EXISTS (SELECT 1 FROM fact_events x WHERE x.tenant_id = :t AND x.fact_id = c.id)
        THEN 0
      END
    END
"""
PLACE_IDS = text(
    f"""
    UPDATE imp_map p SET new = r.id FROM (
      SELECT DISTINCT ON (m.kind, m.old) m.kind, m.old, c.id
      FROM imp_map m
      CROSS JOIN LATERAL (
        SELECT k, CASE WHEN k = 0 THEN m.old ELSE {DERIVED} END AS id FROM generate_series(0, :tries) AS k
      ) c
      CROSS JOIN LATERAL (SELECT coalesce({_OWNER}, 1) AS owner) w
      WHERE w.owner < 2 AND (c.k > 0 OR w.owner = 0)
      ORDER BY m.kind, m.old, w.owner, c.k
    ) r WHERE p.kind = r.kind AND p.old = r.old
    """
)
UNPLACED = text("SELECT count(*) FROM imp_map WHERE new IS NULL")


def _remap(column: str, kind: str) -> str:
    return (
        f"coalesce((SELECT array_agg(x.new ORDER BY a.ord) "
        f"FROM unnest({column}) WITH ORDINALITY AS a(id, ord) "
        f"JOIN imp_map x ON x.kind = '{kind}' AND x.old = a.id), '{{}}')"
    )


# --- the writes: each answers how many rows it created; the rest were present -----------------------
MESSAGES = text(
    """
    WITH ins AS (
      INSERT INTO messages (message_id, tenant_id, session_id, user_id, seq, role, name, content,
                            metadata, token_count, created_at, updated_at, plain_tsv)
      SELECT p.new, :t, i.session_id, :u, i.seq, i.role, i.name, i.content, i.metadata, i.token_count,
             i.created_at, coalesce(i.updated_at, i.created_at), i.plain_tsv
      FROM imp_messages i JOIN imp_map p ON p.kind = 'm' AND p.old = i.message_id
      ORDER BY i.session_id, i.seq
      ON CONFLICT DO NOTHING RETURNING session_id
    ), touched AS (
      INSERT INTO imp_touched SELECT DISTINCT session_id FROM ins ON CONFLICT DO NOTHING
    )
    SELECT count(*) FROM ins
    """
)
# Summaries arrive without vectors; their session gets an `embed_summaries` job (app.transfer.tasks).
SUMMARIES = text(
    """
    WITH ins AS (
      INSERT INTO summaries (summary_id, tenant_id, session_id, user_id, from_seq, to_seq,
                             message_count, content, token_count, provider, created_at, plain_tsv)
      SELECT p.new, :t, i.session_id, :u, i.from_seq, i.to_seq, i.message_count, i.content,
             i.token_count, i.provider, i.created_at, i.plain_tsv
      FROM imp_summaries i JOIN imp_map p ON p.kind = 's' AND p.old = i.summary_id
      ORDER BY i.session_id, i.to_seq
      ON CONFLICT DO NOTHING RETURNING session_id
    ), touched AS (
      INSERT INTO imp_touched SELECT DISTINCT session_id FROM ins ON CONFLICT DO NOTHING
    ), jobs AS (
      INSERT INTO jobs (tenant_id, kind, session_id) SELECT DISTINCT :t, :embed_kind, session_id FROM ins
      ON CONFLICT DO NOTHING
    )
    SELECT count(*) FROM ins
    """
)
# Facts arrive without vectors: the worker's `embed_facts` step picks them up like facts added by hand.
FACTS = text(
    f"""
    WITH ins AS (
      INSERT INTO facts (fact_id, tenant_id, user_id, content, kind, subject, exclusive, topics,
                         importance, metadata, actor, source_message_ids, session_id, valid_from,
                         invalid_at, superseded_by, mention_count, last_mentioned_at, last_used_at,
                         created_at, updated_at, speaker, plain_tsv)
      SELECT p.new, :t, :u, i.content, i.kind, i.subject, i.exclusive, i.topics, i.importance,
             i.metadata, i.actor, {_remap("i.source_message_ids", "m")}, i.session_id, i.valid_from,
             i.invalid_at, b.new, i.mention_count, coalesce(i.last_mentioned_at, i.valid_from),
             i.last_used_at, coalesce(i.created_at, now()), coalesce(i.updated_at, i.created_at, now()),
             i.speaker, i.plain_tsv
      FROM imp_facts i JOIN imp_map p ON p.kind = 'f' AND p.old = i.fact_id
      LEFT JOIN imp_map b ON b.kind = 'f' AND b.old = i.superseded_by
      ORDER BY i.line
      ON CONFLICT DO NOTHING RETURNING 1
    )
    SELECT count(*) FROM ins
    """
)
# A fact's history is written whole or not at all: present as soon as the target tenant holds any
# event of the (placed) fact id. Inserted in file order, so the history keeps its order.
EVENTS = text(
    f"""
    WITH ins AS (
      INSERT INTO fact_events (tenant_id, user_id, fact_id, event, old_content, new_content, actor,
                               reason, related_fact_id, source_message_ids, created_at)
      SELECT :t, :u, p.new, i.event, i.old_content, i.new_content, i.actor, i.reason, r.new,
             {_remap("i.source_message_ids", "m")}, i.created_at
      FROM imp_events i JOIN imp_map p ON p.kind = 'f' AND p.old = i.fact_id
      LEFT JOIN imp_map r ON r.kind = 'f' AND r.old = i.related_fact_id
      WHERE NOT EXISTS (SELECT 1 FROM fact_events x WHERE x.tenant_id = :t AND x.fact_id = p.new)
      ORDER BY i.line
      RETURNING 1
    )
    SELECT count(*) FROM ins
    """
)

# Sessions that gained rows get their watermarks from what they now hold: last_seq, summarized_seq
# (the newest summary), extracted_seq (the file's, so imported facts are not extracted again, but
# never past unread messages that were already waiting), and the work still due is queued the way
# an append queues it (app.messages.service._APPEND).
WATERMARKS = text(
    f"""
    WITH w AS (
      SELECT s.session_id, s.last_seq AS old_last, s.extracted_seq AS old_extracted,
             i.extracted_seq AS file_extracted,
             greatest(s.last_seq, i.last_seq, coalesce((SELECT max(m.seq) FROM messages m
               WHERE m.tenant_id = :t AND m.session_id = s.session_id), 0)) AS last_seq,
             greatest(s.summarized_seq, coalesce((SELECT max(x.to_seq) FROM summaries x
               WHERE x.tenant_id = :t AND x.session_id = s.session_id), 0)) AS summarized_seq
      FROM imp_touched tt JOIN imp_sessions i USING (session_id)
      JOIN sessions s ON s.tenant_id = :t AND s.session_id = tt.session_id
    ), u AS (
      UPDATE sessions s SET
        {counters.recounted("s", "w")},
        extracted_seq = CASE WHEN w.old_extracted >= w.old_last
          THEN greatest(w.old_extracted, least(w.file_extracted, w.last_seq)) ELSE w.old_extracted END
      FROM w WHERE s.tenant_id = :t AND s.session_id = w.session_id
      RETURNING s.session_id, s.last_seq, s.summarized_seq, s.extracted_seq, s.unsummarized_tokens
    )
    INSERT INTO jobs (tenant_id, kind, session_id)
    SELECT :t, :summarize_kind, session_id FROM u WHERE {due_sql("u")}
    UNION ALL
    SELECT :t, :extract_kind, session_id FROM u WHERE CAST(:extract AS boolean) AND extracted_seq < last_seq
    ON CONFLICT DO NOTHING
    """
)
