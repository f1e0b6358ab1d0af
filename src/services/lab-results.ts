import { toCanonicalRecord } from '../domain/canonical.js';
import type { ItemRead } from '../domain/item-reads.js';
import { type LabResultMapping, mapLabResult, type SkippedMetric } from '../domain/openthc-lab-result.js';
import type { FieldProblem } from '../domain/validate-item.js';
import type { Actor } from '../store/store.js';
import { refusedWrite, ServiceError } from './errors.js';
import { type ItemOrRef, noItem } from './item-refs.js';
import type { MenuService } from './menus.js';

/** What importing a lab result did: the item as written, what was mapped, and every metric left out. */
export interface LabResultImport {
  lab_result_id: string | null;
  item: ItemRead;
  mapped: { cannabinoids: number; terpenes: number; batch: string[] };
  skipped: SkippedMetric[];
}

/**
 * Maps an OpenTHC Lab_Result document onto one item (src/domain/openthc-lab-result.ts) and writes it as
 * a change of that item (MenuService.patchItem: the item's validation, one transaction, the feed, the
 * audit log). A list the document has entries for replaces the item's list; the batch fields it
 * gives replace those of the item's batch, the others stay.
 */
export async function importLabResult(
  menus: MenuService,
  dispensaryId: number,
  item: ItemOrRef,
  raw: unknown,
  actor?: Actor,
): Promise<LabResultImport> {
  const result = mapLabResult(raw);
  if (!result.ok) throw refused(result.problems);
  const { mapping } = result;
  const current = (await menus.items(dispensaryId)).find((stored) =>
    typeof item === 'number'
      ? stored.id === item
      : 'id' in item
        ? stored.id === item.id
        : stored.externalId === item.externalId,
  );
  if (!current) throw noItem(dispensaryId, item);
  const patch: Record<string, unknown> = {};
  if (mapping.cannabinoids.length > 0) patch.cannabinoids = mapping.cannabinoids;
  if (mapping.terpenes.length > 0) patch.terpenes = mapping.terpenes;
  const batchFields = Object.keys(mapping.batch);
  if (batchFields.length > 0) patch.batch = { ...toCanonicalRecord(current).batch, ...mapping.batch };
  if (Object.keys(patch).length === 0) {
    throw refused(
      mapping.skipped.map((skipped) => ({ field: skipped.path, message: skipped.reason })),
      'maps nothing onto the item (no cannabinoid, terpene, lab or certificate it carries)',
    );
  }
  let written: ItemRead;
  try {
    written = await menus.patchItem(dispensaryId, current.id, patch, actor);
  } catch (error) {
    if (!(error instanceof ServiceError) || error.problems === undefined) throw error;
    throw refused(error.problems.map((problem) => atDocumentPath(problem, mapping)));
  }
  return {
    lab_result_id: mapping.id,
    item: written,
    mapped: {
      cannabinoids: mapping.cannabinoids.length,
      terpenes: mapping.terpenes.length,
      batch: batchFields,
    },
    skipped: mapping.skipped,
  };
}

/** A problem of the mapped item (`cannabinoids[2].max`) named by the document's metric it came from. */
function atDocumentPath(problem: FieldProblem, mapping: LabResultMapping): FieldProblem {
  const match = /^(cannabinoids|terpenes)\[(\d+)\]/.exec(problem.field);
  const source = match
    ? mapping.sources[match[1] as 'cannabinoids' | 'terpenes'][Number(match[2])]
    : undefined;
  return source === undefined
    ? problem
    : { field: `metric_list[${source}]`, message: `${problem.message} (mapped to ${problem.field})` };
}

const refused = (problems: FieldProblem[], why = 'was refused'): ServiceError =>
  refusedWrite(`The lab result ${why}`, problems);
