/**
 * Every tool, in the order `tools/list` shows them. A new tool is a `defineTool` in
 * `tools/<verb-noun>.ts` added here: the server registers it and the OAuth gate learns its scope.
 */
import type { ToolDefinition } from './define-tool.ts';
import { bestTimeToCrossTool } from './tools/best-time-to-cross.ts';
import { compareCrossingsTool } from './tools/compare-crossings.ts';
import { createAlertTool } from './tools/create-alert.ts';
import { deleteAlertTool } from './tools/delete-alert.ts';
import { exportObservationsTool } from './tools/export-observations.ts';
import { getCurrentWaitsTool } from './tools/get-current-waits.ts';
import { getWaitHistoryTool } from './tools/get-wait-history.ts';
import { listAlertsTool } from './tools/list-alerts.ts';
import { searchCrossingsTool } from './tools/search-crossings.ts';

export const TOOLS: readonly ToolDefinition[] = [
  searchCrossingsTool,
  getCurrentWaitsTool,
  compareCrossingsTool,
  bestTimeToCrossTool,
  createAlertTool,
  listAlertsTool,
  deleteAlertTool,
  getWaitHistoryTool,
  exportObservationsTool,
];
