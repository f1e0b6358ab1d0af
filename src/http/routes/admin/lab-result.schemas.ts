import { Type } from 'typebox';
import { ITEM_READ_EXAMPLE, ItemReadSchema } from '../../../domain/item-reads.js';
import { CHECKED_BY_CODE } from '../../pipeline/document-notes.js';

/** The schemas of `POST .../menu/items/{item_id}/lab-result` (an OpenTHC Lab_Result document). */

const EXAMPLE = {
  id: '01HZLABRESULT000000000TEST',
  license: { id: '01HZLICENSE0000000000000TL', name: 'Cascade Test Labs', code: 'L-410-0042' },
  lab_sample: { id: '01HZLABSAMPLE0000000000BD1' },
  created_at: '2026-03-14T16:20:00-07:00',
  certificate: 'https://labs.example.com/coa/01HZLABRESULT000000000TEST.pdf',
  metric_list: [
    { lab_metric_id: '018NY6XC00LMB0JPRM2SF8F9F2', qom: 24.31, uom: 'percent', lod: 0.01, loq: 0.05 },
    { lab_metric_id: '018NY6XC00LMK7KHD3HPW0Y90N', qom: 'LT-LOD', uom: 'percent' },
    { stub: 'limonene', qom: 4200, uom: 'ppm' },
    { lab_metric_id: '018NY6XC00DYP6MHANHBMRXJSP', qom: 0.01, uom: 'ppm', status: 'pass' },
  ],
};

const LabResultMetric = Type.Object(
  {
    lab_metric_id: Type.Optional(Type.String({ description: "OpenTHC's well-known metric id." })),
    stub: Type.Optional(Type.String({ description: 'Or the metric stub (d9-thca, limonene, …).' })),
    name: Type.Optional(Type.String({ description: 'Or its name (THCa, Myrcene, …).' })),
    qom: Type.Optional(
      Type.Union([Type.Number(), Type.String()], {
        description:
          'The value measured, or a special quantity: N/A, N/T, LT-LOD, GT-LOD / LT-LOQ, LOQ-LB, LOQ-UB, GT-LOQ.',
      }),
    ),
    uom: Type.Optional(
      Type.String({ description: 'mg/g, percent, ppm or ppb (ppm and ppb are kept as mg/g).' }),
    ),
    lod: Type.Optional(Type.Number()),
    loq: Type.Optional(Type.Number()),
    status: Type.Optional(Type.String({ description: 'fail, na, nd, nr, nt or pass.' })),
    lab_result_id: Type.Optional(Type.String()),
    lab_metric: Type.Optional(Type.Object({}, { description: 'The metric as an object {id, stub, name}.' })),
    limit: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, title: 'LabResultMetric' },
);

const Document = Type.Object(
  {
    id: Type.Optional(Type.String()),
    license: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(Type.String()),
          name: Type.Optional(Type.String()),
          code: Type.Optional(Type.String()),
        },
        { description: "The lab's license: name becomes batch.lab_name, code (else id) batch.lab_license." },
      ),
    ),
    lab_sample: Type.Optional(Type.Object({ id: Type.Optional(Type.String()) })),
    created_at: Type.Optional(Type.String({ description: 'When tested (also datetime): batch.tested_at.' })),
    certificate: Type.Optional(Type.String({ description: 'An http(s) URL becomes batch.coa_url.' })),
    metric_list: Type.Array(LabResultMetric),
    contact: Type.Optional(Type.Object({})),
    image: Type.Optional(Type.String()),
    stat: Type.Optional(Type.Unknown()),
    datetime: Type.Optional(Type.String({ description: 'When tested, if created_at is not.' })),
    updated_at: Type.Optional(Type.String()),
    deleted_at: Type.Optional(Type.String()),
    approved_at: Type.Optional(Type.String()),
  },
  {
    additionalProperties: false,
    title: 'LabResult',
    description:
      "OpenTHC's Lab_Result fields; any other is refused, named. Nested objects (license, lab_sample, contact) may carry more.",
  },
);

export const LabResultBody = Type.Unsafe<unknown>({
  anyOf: [
    Document,
    // Anything but null: a missing body (which Fastify checks as null) is refused as empty, as on every
    // route that needs one (body-parsers.ts).
    Type.Unsafe<unknown>({
      not: { type: 'null' },
      description: 'Anything else is refused with 400 naming each path.',
      [CHECKED_BY_CODE]: true,
    }),
  ],
  description:
    "An OpenTHC Lab_Result document (openthc/api): its cannabinoid and terpene metrics become the item's cannabinoids and terpenes, its lab and certificate the batch.",
  examples: [EXAMPLE],
});

const Skipped = Type.Object(
  {
    path: Type.String({ description: 'Where in the document: metric_list[3], certificate.' }),
    metric: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String(),
  },
  { additionalProperties: false, title: 'SkippedMetric' },
);

export const LabResultOut = Type.Object(
  {
    lab_result_id: Type.Union([Type.String(), Type.Null()]),
    item: ItemReadSchema,
    mapped: Type.Object(
      {
        cannabinoids: Type.Integer(),
        terpenes: Type.Integer(),
        batch: Type.Array(Type.String(), { description: 'The batch fields the document set.' }),
      },
      { additionalProperties: false },
    ),
    skipped: Type.Array(Skipped, { description: 'Every metric (or the certificate) not mapped, and why.' }),
  },
  {
    additionalProperties: false,
    title: 'LabResultImport',
    examples: [
      {
        lab_result_id: EXAMPLE.id,
        item: ITEM_READ_EXAMPLE,
        mapped: { cannabinoids: 2, terpenes: 1, batch: ['lab_name', 'lab_license', 'tested_at', 'coa_url'] },
        skipped: [
          {
            path: 'metric_list[3]',
            metric: '018NY6XC00DYP6MHANHBMRXJSP',
            reason: 'is not a cannabinoid or terpene the item carries',
          },
        ],
      },
    ],
  },
);
