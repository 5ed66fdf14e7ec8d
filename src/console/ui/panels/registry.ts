import type { ComponentType } from 'preact';
import { CollectionsPanel } from './collections.js';
import { ConnectPanel } from './connect.js';
import { ToolsPanel } from './tools.js';

/** A screen of the console, reached from the navigation by its id (`#/<id>/…`). */
export interface Panel {
  id: string;
  label: string;
  /** Shown only while connected to a server. */
  needsConnection?: boolean;
  component: ComponentType<{ route: string[] }>;
}

/** The screens in navigation order. Each feature adds its own here. */
export const PANELS: Panel[] = [
  { id: 'connect', label: 'Connection', component: ConnectPanel },
  { id: 'tools', label: 'Tools', needsConnection: true, component: ToolsPanel },
  { id: 'collections', label: 'Collections', component: CollectionsPanel },
];
