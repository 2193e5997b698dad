/**
 * Migration 9: messages deleted by their keys, one delete per message (PgMessageRepository.delete). The one
 * statement it replaces (`instance = $1 AND id = ANY($2)`) ran as a prepared statement whose generic plan,
 * made while the table was young, probed `messages_by_chat` for the instance alone and filtered its whole
 * history by the ids (as `messages_set_statuses`, migration 6, found for receipts). A delete by the whole
 * unique key has one plan at any size, an index probe. Answers how many messages it deleted.
 */
export const MESSAGES_DELETE_MIGRATION = `
  CREATE FUNCTION messages_delete(p_instance text, p_ids text[]) RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE
    v_id text;
    v_one integer;
    v_n integer := 0;
  BEGIN
    FOREACH v_id IN ARRAY p_ids LOOP
      DELETE FROM messages WHERE instance = p_instance AND id = v_id;
      GET DIAGNOSTICS v_one = ROW_COUNT;
      v_n := v_n + v_one;
    END LOOP;
    RETURN v_n;
  END $$;
`;
