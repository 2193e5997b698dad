/** Members that sit beside the typed member of a message without being its content. */
const NOT_CONTENT = new Set(['messageContextInfo', 'senderKeyDistributionMessage']);

/** The typed member of a proto-shaped message (proto JSON, as records keep it): its name and fields. */
export function typedMember(message: Record<string, unknown>): [string, Record<string, unknown>] {
  const entry = Object.entries(message).find(([name]) => !NOT_CONTENT.has(name));
  if (!entry) return ['unknown', {}];
  const [name, value] = entry;
  return [name, value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : { value }];
}
