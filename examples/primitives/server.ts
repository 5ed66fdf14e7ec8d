// A server with a resource, a resource template, a prompt and completion:
//   npx tsx examples/primitives/server.ts        (Streamable HTTP on 127.0.0.1:3000)
import { defineResource, defineResourceTemplate, definePrompt, serveHttp, ToolServer, ToolError } from 'toolwright';

const cities: Record<string, { country: string; population: number }> = {
  oslo: { country: 'Norway', population: 717_710 },
  osaka: { country: 'Japan', population: 2_752_412 },
  paris: { country: 'France', population: 2_102_650 },
};

const server = new ToolServer({
  name: 'cities',
  audit: false,
  resources: [
    defineResource({
      uri: 'cities://index',
      name: 'index',
      title: 'City index',
      description: 'Every city this server knows, one per line',
      mimeType: 'text/plain',
      read: () => Object.keys(cities).join('\n'),
    }),
  ],
  resourceTemplates: [
    defineResourceTemplate({
      uriTemplate: 'cities://{name}',
      name: 'city',
      description: 'Facts about one city, as JSON',
      mimeType: 'application/json',
      variables: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' } }, required: ['name'] },
      complete: { name: (typed) => Object.keys(cities).filter((c) => c.startsWith(typed)) },
      read: (_uri, { name }) => (cities[name] ? JSON.stringify({ name, ...cities[name] }) : undefined), // undefined: Resource not found
    }),
  ],
  prompts: [
    definePrompt({
      name: 'plan_trip',
      title: 'Plan a trip',
      description: 'Asks the model for a three-day plan',
      arguments: [
        { name: 'city', description: 'Where to', required: true },
        { name: 'style', description: 'relaxed or packed' },
      ],
      complete: { city: (typed) => Object.keys(cities).filter((c) => c.startsWith(typed)) },
      get: async ({ city, style }, ctx) => {
        if (!cities[city]) throw new ToolError(`unknown city ${city}; try one of ${Object.keys(cities).join(', ')}`);
        // Ask the user first when the client can (modern: an input-required result; legacy: elicitation/create).
        const budget = ctx.clientCapabilities.elicitation
          ? (await ctx.elicit('What is the budget?', { type: 'object', properties: { budget: { type: 'string' } }, required: ['budget'] })).content?.budget
          : undefined;
        return [
          { role: 'user', content: `Plan three ${style ?? 'relaxed'} days in ${city}${budget ? ` on a budget of ${budget}` : ''}.` },
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: { uri: `cities://${city}`, mimeType: 'application/json', text: JSON.stringify({ name: city, ...cities[city] }) },
            },
          },
        ];
      },
    }),
  ],
});

const http = await serveHttp(server, { port: Number(process.env.PORT ?? 3000) });
console.error(`serving on ${http.url}`);
// server.resources.updated('cities://index') tells subscribed clients to read it again.
