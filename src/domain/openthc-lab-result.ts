import type { Analyte } from './item-documents.js';
import { aliasKey, CANNABINOID_ALIASES, type PotencyUnit, TERPENE_ALIASES } from './lab-vocabulary.js';
import { OPENTHC_METRIC_IDS } from './openthc-metrics.js';
import type { FieldProblem } from './validate-item.js';

/**
 * An OpenTHC `Lab_Result` document (openthc/api, openapi/components/schema/Lab_Result.yaml and
 * Lab_Result_Metric.yaml, MIT) mapped onto the item's lab fields: its cannabinoid and terpene metrics
 * become `cannabinoids` and `terpenes` (codes through the analyte vocabulary), its lab and certificate
 * the `batch`. The item's own validation then checks the result, as for any write.
 */

/** A metric left out, and why: reported back, never dropped silently. */
export interface SkippedMetric {
  path: string;
  metric: string | null;
  reason: string;
}

export interface LabResultMapping {
  id: string | null;
  cannabinoids: Analyte[];
  terpenes: Analyte[];
  /** The metric_list index each analyte came from, so that a problem can name the document's path. */
  sources: { cannabinoids: number[]; terpenes: number[] };
  /** The batch fields the document gives (the item's others stay). */
  batch: { lab_name?: string; lab_license?: string; tested_at?: string; coa_url?: string };
  skipped: SkippedMetric[];
}

/** Lab_Result_Metric.uom, with the unit we keep and the factor to it (ppm and ppb become mg/g). */
const UNITS: Readonly<Record<string, { unit: PotencyUnit; factor: number }>> = {
  percent: { unit: '%', factor: 1 },
  pct: { unit: '%', factor: 1 },
  '%': { unit: '%', factor: 1 },
  'mg/g': { unit: 'mg/g', factor: 1 },
  ppm: { unit: 'mg/g', factor: 1e-3 },
  ppb: { unit: 'mg/g', factor: 1e-6 },
};

/** OpenTHC's special quantities (etc/lab-metric-qom.yaml) and the status each means; null: no value to keep. */
const SPECIAL_QOM: Readonly<Record<string, Analyte['status'] | null>> = {
  'N/A': null,
  'N/T': 'not_tested',
  'LT-LOD': 'nd',
  'GT-LOD/LT-LOQ': 'lt_loq',
  'LOQ-LB': 'lt_loq',
  'LOQ-UB': null,
  'GT-LOQ': null,
};

/** Lab_Result_Metric.status: nd and nt say what the value is; na and nr leave the metric out. */
const STATUSES: Readonly<Record<string, Analyte['status'] | null | undefined>> = {
  nd: 'nd',
  nt: 'not_tested',
  na: null,
  nr: null,
  pass: undefined,
  fail: undefined,
};

/** Lab_Result's fields (and the record times OpenTHC objects carry); any other is refused, named. */
const DOCUMENT_FIELDS = new Set([
  'id',
  'license',
  'lab_sample',
  'contact',
  'certificate',
  'image',
  'metric_list',
  'stat',
  'datetime',
  'created_at',
  'updated_at',
  'deleted_at',
  'approved_at',
]);

/** Lab_Result_Metric's fields, with the metric's own stub, name or object naming it. */
const METRIC_FIELDS = new Set([
  'lab_result_id',
  'lab_metric_id',
  'lab_metric',
  'stub',
  'name',
  'qom',
  'uom',
  'lod',
  'loq',
  'limit',
  'status',
]);

const unknownFields = (record: Record<string, unknown>, known: ReadonlySet<string>, prefix: string) =>
  Object.keys(record)
    .filter((field) => !known.has(field))
    .map((field) => ({
      field: `${prefix}${field}`,
      message: "is not a field of OpenTHC's Lab_Result: leave it out",
    }));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

export function mapLabResult(
  raw: unknown,
): { ok: true; mapping: LabResultMapping } | { ok: false; problems: FieldProblem[] } {
  if (!isObject(raw)) {
    return { ok: false, problems: [{ field: 'body', message: 'must be an OpenTHC Lab_Result object' }] };
  }
  const problems: FieldProblem[] = unknownFields(raw, DOCUMENT_FIELDS, '');
  const mapping: LabResultMapping = {
    id: text(raw.id) ?? null,
    cannabinoids: [],
    terpenes: [],
    sources: { cannabinoids: [], terpenes: [] },
    batch: {},
    skipped: [],
  };
  mapBatch(raw, mapping, problems);
  if (!Array.isArray(raw.metric_list)) {
    problems.push({ field: 'metric_list', message: 'must be an array of Lab_Result_Metric objects' });
    return { ok: false, problems };
  }
  const seen = new Map<string, number>();
  raw.metric_list.forEach((metric: unknown, index) => {
    const path = `metric_list[${index}]`;
    if (!isObject(metric)) {
      problems.push({ field: path, message: 'must be a Lab_Result_Metric object' });
      return;
    }
    const strangers = unknownFields(metric, METRIC_FIELDS, `${path}.`);
    if (strangers.length > 0) {
      problems.push(...strangers);
      return;
    }
    const named = metricName(metric);
    const skip = (reason: string) => mapping.skipped.push({ path, metric: named ?? null, reason });
    const code = codeOf(metric);
    const value = measuredValue(metric, path, problems);
    if (value === undefined) return;
    if (code === undefined) {
      skip(
        named === undefined
          ? 'names no metric: give lab_metric_id, stub or name'
          : 'is not a cannabinoid or terpene the item carries',
      );
      return;
    }
    if (value === null) {
      skip('has no value to show (N/A, not reported, or above the upper limit of quantitation)');
      return;
    }
    const list = CANNABINOID_ALIASES.has(aliasKey(code)) ? 'cannabinoids' : 'terpenes';
    const key = `${code} ${value.unit}`;
    const first = seen.get(key);
    if (first !== undefined) {
      skip(`repeats ${code} in ${value.unit} of metric_list[${first}], which is kept`);
      return;
    }
    seen.set(key, index);
    mapping[list].push({ code, basis: 'weight', ...value });
    mapping.sources[list].push(index);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, mapping };
}

function metricName(metric: Record<string, unknown>): string | undefined {
  const nested = isObject(metric.lab_metric) ? metric.lab_metric : {};
  return (
    text(metric.stub) ??
    text(metric.name) ??
    text(nested.stub) ??
    text(nested.name) ??
    text(metric.lab_metric_id)
  );
}

/** Our analyte code of a metric: by OpenTHC's well-known id, else by its stub or name. */
function codeOf(metric: Record<string, unknown>): string | undefined {
  const id =
    text(metric.lab_metric_id) ?? (isObject(metric.lab_metric) ? text(metric.lab_metric.id) : undefined);
  if (id !== undefined && OPENTHC_METRIC_IDS[id] !== undefined) return OPENTHC_METRIC_IDS[id];
  const nested = isObject(metric.lab_metric) ? metric.lab_metric : {};
  for (const spelling of [metric.stub, metric.name, nested.stub, nested.name]) {
    const key = typeof spelling === 'string' ? aliasKey(spelling) : '';
    const code = CANNABINOID_ALIASES.get(key) ?? TERPENE_ALIASES.get(key);
    if (code !== undefined) return code;
  }
  return undefined;
}

/**
 * The analyte values a metric gives: min, max, unit and status; null when it has none to keep;
 * undefined (a problem recorded) when qom, uom or status is not of the format.
 */
function measuredValue(
  metric: Record<string, unknown>,
  path: string,
  problems: FieldProblem[],
): Pick<Analyte, 'min' | 'max' | 'unit' | 'status'> | null | undefined {
  const before = problems.length;
  const statusText = typeof metric.status === 'string' ? metric.status.trim().toLowerCase() : undefined;
  if (
    metric.status !== undefined &&
    metric.status !== null &&
    (statusText === undefined || !(statusText in STATUSES))
  )
    problems.push({ field: `${path}.status`, message: `must be one of ${Object.keys(STATUSES).join(', ')}` });
  const uomText = typeof metric.uom === 'string' ? metric.uom.trim().toLowerCase() : undefined;
  const uom = uomText === undefined ? undefined : UNITS[uomText];
  if (metric.uom !== undefined && metric.uom !== null && uom === undefined)
    problems.push({ field: `${path}.uom`, message: 'must be one of mg/g, percent, ppm, ppb' });
  let qom: number | Analyte['status'] | null | undefined;
  if (typeof metric.qom === 'number' && Number.isFinite(metric.qom)) qom = metric.qom;
  else if (typeof metric.qom === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(metric.qom))
    qom = Number(metric.qom);
  else if (typeof metric.qom === 'string') {
    const code = metric.qom.toUpperCase().replace(/\s+/g, '');
    if (code in SPECIAL_QOM) qom = SPECIAL_QOM[code];
    else
      problems.push({
        field: `${path}.qom`,
        message: `must be a number or one of ${Object.keys(SPECIAL_QOM).join(', ')}`,
      });
  } else if (metric.qom !== undefined && metric.qom !== null)
    problems.push({ field: `${path}.qom`, message: 'must be a number or a special quantity such as LT-LOD' });
  if (problems.length > before) return undefined;
  const status = statusText === undefined ? undefined : STATUSES[statusText];
  if (status === null) return null;
  const unit = uom?.unit ?? '%';
  if (status === 'nd' || status === 'not_tested') return { min: null, max: null, unit, status };
  if (typeof qom === 'number') {
    if (uom === undefined) {
      problems.push({
        field: `${path}.uom`,
        message: 'is needed with a numeric qom: mg/g, percent, ppm or ppb',
      });
      return undefined;
    }
    const amount = Number((qom * uom.factor).toPrecision(12));
    return { min: amount, max: amount, unit, status: 'detected' };
  }
  if (qom === null || qom === undefined)
    return qom === null ? null : { min: null, max: null, unit, status: 'not_tested' };
  return { min: null, max: null, unit, status: qom };
}

/** The lab (its license's name and code), the day tested and the certificate, when a link. */
function mapBatch(raw: Record<string, unknown>, mapping: LabResultMapping, problems: FieldProblem[]): void {
  if (raw.license !== undefined && raw.license !== null) {
    if (!isObject(raw.license))
      problems.push({ field: 'license', message: 'must be a License object {id, name, code}' });
    else {
      const name = text(raw.license.name);
      const license = text(raw.license.code) ?? text(raw.license.id);
      if (name !== undefined) mapping.batch.lab_name = name;
      if (license !== undefined) mapping.batch.lab_license = license;
    }
  }
  for (const field of ['datetime', 'created_at', 'approved_at']) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    const day = typeof value === 'string' ? /^(\d{4}-\d{2}-\d{2})/.exec(value.trim())?.[1] : undefined;
    if (day === undefined)
      problems.push({ field, message: 'must be an ISO date and time, such as 2026-04-02T10:00:00Z' });
    else mapping.batch.tested_at ??= day;
  }
  if (raw.certificate !== undefined && raw.certificate !== null) {
    const certificate = text(raw.certificate);
    if (certificate === undefined) problems.push({ field: 'certificate', message: 'must be a URL' });
    else if (/^https?:\/\/\S+$/i.test(certificate)) mapping.batch.coa_url = certificate;
    else
      mapping.skipped.push({
        path: 'certificate',
        metric: null,
        reason: 'is not an http(s) link (a certificate sent as data is not kept): give its URL to link it',
      });
  }
}
