import type { UsageCount } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Alert, useLoad } from '../components.js';

const HOUR_MS = 3_600_000;

/** Requests per credential per hour over the last 7 days: one bar chart per credential. */
export function UsagePage() {
  const usage = useLoad(() => api<UsageCount[]>('GET', '/usage?days=7'), []);
  return (
    <>
      <h1>Usage</h1>
      <p>
        Requests per credential per hour, last 7 days (UTC hours; counted in memory, saved at most once a
        minute).
      </p>
      <Alert message={usage.error} />
      <UsageCharts rows={usage.data} hours={7 * 24} period="7 days" />
    </>
  );
}

/**
 * One bar chart per credential of `rows`, an hour a bar, over the last `hours` hours (`period` in
 * words): the operators' Usage page, and an integrator's own in its portal.
 */
export function UsageCharts(props: { rows: UsageCount[] | undefined; hours: number; period: string }) {
  const { rows, hours, period } = props;
  const end = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const start = end - (hours - 1) * HOUR_MS;
  const byUser = new Map<string, number[]>();
  for (const row of rows ?? []) {
    const slot = Math.round((Date.parse(row.hour) - start) / HOUR_MS);
    if (slot < 0 || slot >= hours) continue;
    const counts = byUser.get(row.username) ?? new Array<number>(hours).fill(0);
    counts[slot] = (counts[slot] ?? 0) + row.requests;
    byUser.set(row.username, counts);
  }
  // The bars fill the same width whatever the period: 7 days of hours, or 24 hours.
  const step = Math.max(4, Math.floor(672 / hours));
  return (
    <>
      {rows && byUser.size === 0 && <p role="status">No requests in the last {period}.</p>}
      {[...byUser].map(([username, counts]) => {
        const total = counts.reduce((sum, count) => sum + count, 0);
        const peak = Math.max(...counts, 1);
        return (
          <figure key={username} class="usage">
            <figcaption>
              <strong>{username}</strong>: {total} requests, at most {peak} in an hour
            </figcaption>
            <svg
              role="img"
              aria-label={`Requests per hour for ${username} over ${period}: ${total} in total, peak ${peak}`}
              viewBox={`0 0 ${hours * step} 60`}
              preserveAspectRatio="none"
              class="chart"
            >
              {counts.map((count, slot) =>
                count > 0 ? (
                  <rect
                    key={slot}
                    x={slot * step}
                    y={60 - (count / peak) * 58}
                    width={step - 1}
                    height={(count / peak) * 58}
                  >
                    <title>
                      {new Date(start + slot * HOUR_MS).toISOString().slice(0, 13)}h: {count}
                    </title>
                  </rect>
                ) : null,
              )}
            </svg>
          </figure>
        );
      })}
    </>
  );
}
