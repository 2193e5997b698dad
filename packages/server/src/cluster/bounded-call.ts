import type { Logger } from '@parley/core';

/**
 * A cluster loop call's answer, or undefined (logged) when it failed or got none within `waitMs`: the
 * loop sends it again next round instead of waiting for it (an unanswered renewal never holds the next back).
 */
export async function bounded<T>(call: Promise<T>, what: string, waitMs: number, logger: Logger): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), waitMs);
  });
  try {
    const answer = await Promise.race([call, late]);
    if (answer === undefined) logger.warn({ what, waitedMs: waitMs }, 'cluster call unanswered; sent again next round');
    return answer;
  } catch (err) {
    logger.warn({ err, what }, 'cluster call failed; sent again next round');
    return undefined;
  } finally {
    clearTimeout(timer);
    call.catch(() => undefined);
  }
}
