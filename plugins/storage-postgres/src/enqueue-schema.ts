/**
 * Migration 7: a run of an instance's enqueues in one call (PgOutboundQueue.enqueue). An instance's
 * enqueues run one after another (the bound and lane order follow the API's order), so under load they
 * were a chain of round trips, each waiting on the instance's `outbound_counts` row: the accepted sends
 * per second of one instance were bounded by one round trip each. The calls made while one is in
 * flight now go together, in call order, each exactly as `outbound_enqueue` (migration 2) does it, in
 * one transaction. Answers the outcomes in the same order. Lock order as every lane writer's, lanes
 * before the instance's count row: the batch's lane rows first, all of them, in lane order (created as
 * empty placeholders where missing, which an enqueue that stores nothing removes as it does alone),
 * then the enqueues; taken enqueue by enqueue, a completion holding a later lane and waiting for the
 * count row the batch already held would deadlock with it.
 */
export const ENQUEUE_MANY_MIGRATION = `
  CREATE FUNCTION outbound_enqueue_many(p_instance text, p_ids text[], p_lanes text[], p_due bigint[], p_created bigint[],
    p_payloads text[], p_bounds bigint[], p_now bigint[], p_lease_until bigint[]) RETURNS text[] LANGUAGE plpgsql AS $$
  DECLARE
    v_outcomes text[] := '{}';
  BEGIN
    INSERT INTO outbound_lanes (instance, lane, head, ready_at)
      SELECT DISTINCT p_instance, k.lane, 0::bigint, 0::bigint FROM unnest(p_lanes) AS k (lane) ORDER BY 2
      ON CONFLICT (instance, lane) DO UPDATE SET head = outbound_lanes.head;
    FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
      v_outcomes := v_outcomes || outbound_enqueue(p_instance, p_ids[i], p_lanes[i], p_due[i], p_created[i], p_payloads[i],
        p_bounds[i], p_now[i], p_lease_until[i]);
    END LOOP;
    RETURN v_outcomes;
  END $$;
`;

/**
 * Migration 8: completions of an instance's sends together (PgOutboundQueue.complete), as the enqueues
 * above: every completion takes the instance's `outbound_counts` row, so concurrent ones waited for each
 * other's commit there. The entries' lane rows are locked first, in lane order, then each entry is
 * completed as `outbound_complete` (migration 5) does it, in one transaction. Unknown ids are ignored.
 */
export const COMPLETE_MANY_MIGRATION = `
  CREATE FUNCTION outbound_complete_many(p_instance text, p_ids text[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    v_id text;
  BEGIN
    INSERT INTO outbound_lanes (instance, lane, head, ready_at)
      SELECT DISTINCT p_instance, o.lane, 0::bigint, 0::bigint FROM unnest(p_ids) AS k (id)
        CROSS JOIN LATERAL (SELECT lane FROM outbound WHERE instance = p_instance AND id = k.id LIMIT 1) AS o
      ORDER BY 2
      ON CONFLICT (instance, lane) DO UPDATE SET head = outbound_lanes.head;
    FOREACH v_id IN ARRAY p_ids LOOP
      PERFORM outbound_complete(p_instance, v_id);
    END LOOP;
  END $$;
`;
