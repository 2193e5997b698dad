/** Whether `err` is PostgreSQL's unique_violation (23505), of `constraint` when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const { code, constraint: violated } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || violated === constraint);
}
