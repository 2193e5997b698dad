import { STATUS_RANK_SQL } from '@parley/storage-sql';

/**
 * Migration 6: a run of receipts applied by a function, one update per message by its key
 * (PgMessageRepository.setStatuses). The one set-based statement it replaces (an `UPDATE … FROM
 * unnest(…)`) ran as a prepared statement whose generic plan was made while the table was young and
 * kept while it grew: with no statistics yet the planner took `instance = $1` for a handful of rows and
 * hashed every message of the instance (a bitmap scan of its whole history) to update about ten — a
 * millisecond and more per call at a few thousand messages, growing with the history. An update by the
 * whole unique key has one plan at any size, an index probe. The messages are taken in the order given
 * (the caller sorts them, so two calls lock shared rows in one order). Answers the ids that exist.
 */
export const STATUSES_MIGRATION = `
  CREATE FUNCTION messages_set_statuses(p_instance text, p_ids text[], p_statuses text[], p_ranks integer[], p_force boolean[])
    RETURNS SETOF text LANGUAGE plpgsql AS $$
  BEGIN
    FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
      UPDATE messages SET status = p_statuses[i]
        WHERE instance = p_instance AND id = p_ids[i]
          AND (p_force[i] OR p_statuses[i] = 'ERROR' OR p_ranks[i] > ${STATUS_RANK_SQL});
      IF FOUND OR EXISTS (SELECT 1 FROM messages WHERE instance = p_instance AND id = p_ids[i]) THEN
        RETURN NEXT p_ids[i];
      END IF;
    END LOOP;
  END $$;
`;
