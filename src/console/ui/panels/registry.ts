import type { ComponentType } from 'preact';
import type { Listing } from './listing.js';
import { CollectionsPanel } from './collections.js';
import { ConnectPanel } from './connect.js';
import { AuditPanel } from './operator/audit.js';
import type { ConnectionStatus, OperatorAvailability } from '../../api-types.js';
import { HistoryPanel } from './debugger/history.js';
import { LogsPanel } from './debugger/logs.js';
import { RootsPanel } from './debugger/roots.js';
import { SkillsPanel } from './debugger/skills.js';
import { LimitsPanel } from './operator/limits.js';
import { TasksPanel } from './operator/tasks.js';
import { PromptsPanel } from './prompts.js';
import { ResourcesPanel } from './resources.js';
import { ToolsPanel } from './tools.js';
import { UpstreamsPanel } from './upstreams.js';

/** A screen of the console, reached from the navigation by its id (`#/<id>/…`). */
interface Panel {
  id: string;
  label: string;
  /** Shown only while connected to a server. */
  needsConnection?: boolean;
  /** Shown only when the server declares this capability and lists something in it (see listing.ts). */
  needsCapability?: keyof Listing;
  /** Shown only when the listing says so (a gateway's Upstreams). */
  needsListing?: keyof Listing;
  /** Shown only when the server declares this extension (`capabilities.extensions`). */
  needsExtension?: string;
  /** Shown only beside a server that has this operator data (`serve --console`; never standalone). */
  needsOperator?: 'audit' | 'tasks' | 'limits';
  component: ComponentType<{ route: string[] }>;
}

/** The screens in navigation order. Each feature adds its own here. */
export const PANELS: Panel[] = [
  { id: 'connect', label: 'Connection', component: ConnectPanel },
  { id: 'tools', label: 'Tools', needsConnection: true, component: ToolsPanel },
  { id: 'resources', label: 'Resources', needsConnection: true, needsCapability: 'resources', component: ResourcesPanel },
  { id: 'prompts', label: 'Prompts', needsConnection: true, needsCapability: 'prompts', component: PromptsPanel },
  { id: 'upstreams', label: 'Upstreams', needsConnection: true, needsListing: 'upstreams', component: UpstreamsPanel },
  { id: 'skills', label: 'Skills', needsConnection: true, needsExtension: 'io.modelcontextprotocol/skills', component: SkillsPanel },
  { id: 'history', label: 'History', needsConnection: true, component: HistoryPanel },
  { id: 'logs', label: 'Log messages', needsConnection: true, component: LogsPanel },
  { id: 'roots', label: 'Roots', needsConnection: true, component: RootsPanel },
  { id: 'collections', label: 'Collections', component: CollectionsPanel },
  { id: 'audit', label: 'Audit', needsOperator: 'audit', component: AuditPanel },
  { id: 'tasks', label: 'Running tasks', needsOperator: 'tasks', component: TasksPanel },
  { id: 'limits', label: 'Rate limits', needsOperator: 'limits', component: LimitsPanel },
];

/** Whether an operator panel has its data here (other panels: always). */
export function operatorAllows(panel: Panel, operator: OperatorAvailability): boolean {
  return !panel.needsOperator || Boolean(operator[panel.needsOperator]);
}

/** Whether the connected server declares the capability or extension the panel needs. */
export function capabilityAllows(panel: Panel, status: ConnectionStatus): boolean {
  if (panel.needsCapability && !status.capabilities?.[panel.needsCapability]) return false;
  const extensions = status.capabilities?.extensions as Record<string, unknown> | undefined;
  return !panel.needsExtension || Boolean(extensions?.[panel.needsExtension]);
}

/** Whether the connected server declares what the panel shows, and lists some of it. */
export function listingAllows(panel: Panel, listing: Listing): boolean {
  return (!panel.needsCapability || listing[panel.needsCapability] === true) && (!panel.needsListing || listing[panel.needsListing] === true);
}
