/**
 * Waits until the check holds, asking every `intervalMs` (50 by default); throws naming what it waited
 * for after `timeoutMs`. For what a test waits on in another process or over the network, where no
 * event tells it: polling ends as soon as the thing happens, where a fixed sleep always waits its whole
 * length, and on a busy machine sometimes not long enough.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until `check` passes (does not throw), trying every 50 ms; after `timeoutMs` its last failure is thrown. */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
