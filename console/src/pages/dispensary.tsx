import type { DispensaryDetail } from '../../../src/client/types.js';
import { api } from '../api.js';
import { Alert, useLoad } from '../components.js';
import { Link } from '../router.js';
import { ImportTab } from './import.js';
import { MenuTab } from './menu.js';
import { PublishingTab } from './publishing.js';
import { SpecialsTab } from './specials.js';
import { StoreTab } from './store.js';

export type Tab = 'menu' | 'store' | 'specials' | 'import' | 'publishing';

export function DispensaryPage(props: { id: number; tab: Tab }) {
  const detail = useLoad(() => api<DispensaryDetail>('GET', `/dispensaries/${props.id}`), [props.id]);
  const tabs: [Tab, string][] = [
    ['menu', 'Menu'],
    ['store', 'Store'],
    ['specials', 'Specials'],
    ['import', 'Import'],
    ['publishing', 'Publishing'],
  ];
  return (
    <>
      <h1>{detail.data?.name ?? `Dispensary ${props.id}`}</h1>
      <Alert message={detail.error} />
      <nav aria-label="Dispensary" class="tabs">
        <ul>
          {tabs.map(([tab, label]) => (
            <li key={tab}>
              <Link to={`/dispensaries/${props.id}/${tab}`} current={props.tab === tab}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {props.tab === 'menu' && <MenuTab id={props.id} />}
      {props.tab === 'store' && detail.data && <StoreTab detail={detail.data} onSaved={detail.reload} />}
      {props.tab === 'specials' && detail.data && (
        <SpecialsTab id={props.id} timezone={detail.data.store.timezone ?? null} />
      )}
      {props.tab === 'import' && <ImportTab id={props.id} />}
      {props.tab === 'publishing' && detail.data && (
        <PublishingTab detail={detail.data} onSaved={detail.reload} />
      )}
    </>
  );
}
