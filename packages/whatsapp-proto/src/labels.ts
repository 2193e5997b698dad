import { ConflictError, type Label } from '@parley/core';

/** WhatsApp Business keeps at most this many labels per account. */
export const MAX_LABELS = 20;
/** Size of WhatsApp's label palette: colors are indexes 0–19. */
export const LABEL_COLORS = 20;

/**
 * The label a WhatsApp Business account creates as `id` (WhatsApp's small integer ids as text) beside the
 * `existing` ones: refused with 409 `label_limit` past 20 labels and 409 `label_exists` for a name already
 * taken (ignoring case); without a chosen color it takes the next one of the palette, as WhatsApp assigns them.
 */
export function newLabel(existing: readonly Label[], id: string, name: string, color?: number): Label {
  if (existing.length >= MAX_LABELS) throw new ConflictError(`an account has at most ${MAX_LABELS} labels`, 'label_limit');
  if (existing.some((l) => l.name.toLowerCase() === name.toLowerCase())) throw new ConflictError(`a label named "${name}" exists`, 'label_exists');
  return { id, name, color: color ?? (Number(id) - 1) % LABEL_COLORS };
}
