-- Read-only SQL views over the Kairos read model, for compliance staff's own
-- SQL tools (PostgreSQL).  Run this as a database administrator — not as the
-- role Kairos connects with — after Kairos has created its tables (its first
-- `kairos init`).  The views belong to the administrator, and the auditor role
-- can read the views and nothing else.  Run it again after an upgrade; it is
-- idempotent.

CREATE SCHEMA IF NOT EXISTS kairos_audit;

-- One row per event, in global order: who wrote what, when, from where.
CREATE OR REPLACE VIEW kairos_audit.events AS
SELECT position,
       event_id,
       recorded_at::timestamptz AS recorded_at,
       type,
       actor,
       agent_id,
       user_id,
       file,
       session_id,
       text,
       retracted_by,
       ref AS dream_id,
       log_file,
       log_line
  FROM public.memory_index;

-- The current text of every memory file.
CREATE OR REPLACE VIEW kairos_audit.files AS
SELECT agent_id,
       NULLIF(user_id, '') AS user_id,
       file,
       content,
       version AS stream_version,
       position AS last_position,
       updated_at::timestamptz AS updated_at
  FROM public.memory_files;

-- Dream proposals and what became of them.
CREATE OR REPLACE VIEW kairos_audit.dreams AS
SELECT p.event_id AS dream_id,
       p.agent_id,
       p.user_id,
       p.recorded_at::timestamptz AS proposed_at,
       CASE d.type WHEN 'DreamApproved' THEN 'approved'
                   WHEN 'DreamRejected' THEN 'rejected'
                   ELSE 'pending' END AS status,
       d.actor AS decided_by,
       d.recorded_at::timestamptz AS decided_at
  FROM public.memory_index p
  LEFT JOIN public.memory_index d
    ON d.ref = p.event_id AND d.type IN ('DreamApproved', 'DreamRejected')
 WHERE p.type = 'DreamProposed';

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'kairos_auditor') THEN
    CREATE ROLE kairos_auditor NOLOGIN;
  END IF;
END
$$;

GRANT USAGE ON SCHEMA kairos_audit TO kairos_auditor;
GRANT SELECT ON ALL TABLES IN SCHEMA kairos_audit TO kairos_auditor;

-- Give a person the role:  CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE kairos_auditor;
