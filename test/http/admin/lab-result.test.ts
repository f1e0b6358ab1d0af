import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminCall, adminKey, auditLog, syncTestRuntime } from '../../helpers/admin.js';
import type { TestRuntime } from '../../helpers/runtime.js';

/** Our test document in OpenTHC's Lab_Result shape (see test/fixtures/openthc/README.md). */
const DOCUMENT = JSON.parse(readFileSync('test/fixtures/openthc/lab-result.json', 'utf8'));

const weight = { basis: 'weight' } as const;

describe('sync API: importing an OpenTHC lab result onto an item', () => {
  let runtime: TestRuntime;
  let admin: AdminCall;
  const menu = () => `/dispensaries/${runtime.seed.dispensaryId}/menu`;
  const importTo = (item: string, body: unknown) => admin('POST', `${menu()}/items/${item}/lab-result`, body);

  beforeAll(async () => {
    runtime = await syncTestRuntime();
    ({ call: admin } = await adminKey(runtime, 'all', 'pos'));
  });
  afterAll(() => runtime.close());
  beforeEach(async () => {
    const reset = await admin('PUT', menu(), [
      {
        id: 1,
        name: 'Blue Dream',
        product_type: 'Flower',
        external_id: 'pos-bd',
        terpenes: [{ code: 'linalool', min: 0.2, max: 0.2, unit: '%', basis: 'weight', status: 'detected' }],
        batch: { package_label: '1A4060300003B01000012345', batch_number: 'BD-7' },
        prices: [{ unit: 'gram', amount: 1, price: 12 }],
      },
    ]);
    expect(reset.statusCode, reset.body).toBe(200);
  });

  it('maps the cannabinoids, terpenes and batch, reports what it skipped, and records it on the feed and in the audit log', async () => {
    const head = await runtime.services.store.menuChanges.head();
    const audited = (await auditLog(runtime)).length;
    const response = await importTo('ext:pos-bd', DOCUMENT);
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json();
    expect(answer.lab_result_id).toBe('01HZLABRESULT000000000TEST');
    expect(answer.item.cannabinoids).toEqual([
      { code: 'd9-thca', min: 24.31, max: 24.31, unit: '%', ...weight, status: 'detected' },
      { code: 'd9-thc', min: 0.72, max: 0.72, unit: '%', ...weight, status: 'detected' },
      { code: 'total-thc', min: 22.04, max: 22.04, unit: '%', ...weight, status: 'detected' },
      { code: 'cbd', min: null, max: null, unit: '%', ...weight, status: 'nd' },
      { code: 'cbga', min: null, max: null, unit: '%', ...weight, status: 'lt_loq' },
      { code: 'cbn', min: null, max: null, unit: '%', ...weight, status: 'nd' },
      { code: 'thcv', min: null, max: null, unit: '%', ...weight, status: 'not_tested' },
    ]);
    // The document's terpenes replace the item's (linalool is gone); 4200 ppm is 4.2 mg/g.
    expect(answer.item.terpenes).toEqual([
      { code: 'beta-myrcene', min: 8.9, max: 8.9, unit: 'mg/g', ...weight, status: 'detected' },
      { code: 'limonene', min: 4.2, max: 4.2, unit: 'mg/g', ...weight, status: 'detected' },
      { code: 'beta-caryophyllene', min: 3.1, max: 3.1, unit: 'mg/g', ...weight, status: 'detected' },
    ]);
    // The lab's fields are set; the item's package label and batch number stay.
    expect(answer.item.batch).toMatchObject({
      package_label: '1A4060300003B01000012345',
      batch_number: 'BD-7',
      lab_name: 'Cascade Test Labs',
      lab_license: 'L-410-0042',
      tested_at: '2026-03-14',
      coa_url: 'https://labs.example.com/coa/01HZLABRESULT000000000TEST.pdf',
    });
    // The reported total is the headline potency.
    expect(answer.item.potency.thc).toMatchObject({ min: 22.04, max: 22.04, method: 'reported' });
    expect(answer.mapped).toEqual({
      cannabinoids: 7,
      terpenes: 3,
      batch: ['lab_name', 'lab_license', 'tested_at', 'coa_url'],
    });
    expect(answer.skipped).toEqual([
      {
        path: 'metric_list[10]',
        metric: '018NY6XC00LMQF9D59E5T0QA0A',
        reason: expect.stringContaining('no value'),
      },
      {
        path: 'metric_list[11]',
        metric: '018NY6XC00LMCG3GPPN8QDAGAQ',
        reason: expect.stringContaining('no value'),
      },
      {
        path: 'metric_list[12]',
        metric: '018NY6XC00DYP6MHANHBMRXJSP',
        reason: 'is not a cannabinoid or terpene the item carries',
      },
      { path: 'metric_list[13]', metric: 'total-thc', reason: expect.stringContaining('metric_list[2]') },
    ]);
    // The menu read has it; the feed has one change of the item; the audit log one entry.
    const stored = (await admin('GET', menu())).json()[0];
    expect(stored.cannabinoids).toEqual(answer.item.cannabinoids);
    const changes = await runtime.services.store.menuChanges.since(head, 100);
    expect(changes.map((change) => [change.type, change.itemId])).toEqual([['item.upserted', 1]]);
    expect((await auditLog(runtime)).length).toBe(audited + 1);
  });

  it('a bad document is a 400 naming each path, and changes nothing', async () => {
    const before = (await admin('GET', menu())).body;
    const cases: [unknown, string[]][] = [
      [[], ['body']],
      [{ id: 'x' }, ['metric_list']],
      [
        { extra: 1, metric_list: [{ stub: 'cbd', qom: 1, uom: 'percent', colour: 'x' }] },
        ['extra', 'metric_list[0].colour'],
      ],
      [
        {
          license: 'Cascade',
          created_at: 'last week',
          metric_list: [
            'd9-thc',
            { stub: 'cbd', qom: 'lots', uom: 'percent' },
            { stub: 'cbd', qom: 1, uom: 'grams' },
            { stub: 'cbg', qom: 1, uom: 'percent', status: 'maybe' },
            { stub: 'cbn', qom: 2 },
          ],
        },
        [
          'license',
          'created_at',
          'metric_list[0]',
          'metric_list[1].qom',
          'metric_list[2].uom',
          'metric_list[3].status',
          'metric_list[4].uom',
        ],
      ],
      // Mapped, but not a valid item: above 100 %, named by the metric it came from.
      [{ metric_list: [{ stub: 'd9-thca', qom: 130, uom: 'percent' }] }, ['metric_list[0]']],
      // Nothing the item carries: refused, each skipped metric named.
      [
        { metric_list: [{ lab_metric_id: '018NY6XC00DYP6MHANHBMRXJSP', qom: 0, uom: 'ppm' }] },
        ['metric_list[0]'],
      ],
    ];
    for (const [body, paths] of cases) {
      const response = await importTo('1', body);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.problems.map((problem: { field: string }) => problem.field)).toEqual(
        paths,
      );
    }
    const unknown = await importTo('ext:nope', DOCUMENT);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toContain('ext:nope');
    expect((await admin('GET', menu())).body).toBe(before);
  });
});
