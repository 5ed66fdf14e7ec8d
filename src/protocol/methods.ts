/** Method names, and the ones each era has removed (answered with -32601). */
export const Method = {
  discover: 'server/discover',
  initialize: 'initialize',
  initialized: 'notifications/initialized',
  ping: 'ping',
  toolsList: 'tools/list',
  toolsCall: 'tools/call',
  setLogLevel: 'logging/setLevel',
  cancelled: 'notifications/cancelled',
  progress: 'notifications/progress',
  message: 'notifications/message',
  toolsListChanged: 'notifications/tools/list_changed',
  subscriptionsListen: 'subscriptions/listen',
  resourcesList: 'resources/list',
  resourceTemplatesList: 'resources/templates/list',
  resourcesRead: 'resources/read',
} as const;
