/**
 * Why `parley storage copy` stopped before writing anything: `usage` for arguments it cannot use (a
 * malformed endpoint, an unknown instance), `refused` for a store it will not copy (pending
 * deliveries or sends, a back end that cannot list its data, a target whose instance clashes).
 */
export class StorageCopyError extends Error {
  override readonly name = 'StorageCopyError';

  constructor(message: string, readonly reason: 'usage' | 'refused') {
    super(message);
  }
}
