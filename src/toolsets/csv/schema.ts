// The JSON Schemas of analyze_csv, kept apart from the logic so the tool file reads as behaviour.
import type { PathSandbox } from '../../policy/paths.js';
import { pathProperty } from '../path-property.js';
import { OPERATIONS } from './column-stats.js';

export function inputSchema(sandbox: PathSandbox, maxColumns: number) {
  return {
    type: 'object',
    properties: {
      path: pathProperty(sandbox, 'The CSV file'),
      operations: {
        type: 'array',
        items: { type: 'string', enum: OPERATIONS },
        minItems: 1,
        uniqueItems: true,
        description:
          'What to compute per column: "sum", "average", "min", "max" (over the cells that are numbers; a text column, with none, gives its distinct values instead), "count" (non-empty cells), "distinct" (number of different values and the most frequent ones), "describe" (all of these plus standard deviation).',
      },
      columns: {
        type: 'array',
        items: {
          anyOf: [
            { type: 'string', minLength: 1, maxLength: 1000 },
            { type: 'integer', minimum: 1 },
          ],
        },
        minItems: 1,
        maxItems: maxColumns,
        description: 'Columns to analyze, by header name or 1-based position (default: all). Without a header, columns are named column_1, column_2, …',
      },
      delimiter: { type: 'string', minLength: 1, maxLength: 4, description: 'Field separator (default: detected from the first line among , ; tab |).' },
      has_header: { type: 'boolean', default: true, description: 'The first row holds column names.' },
    },
    required: ['path', 'operations'],
    additionalProperties: false,
  };
}

const nullableNumber = { type: ['number', 'null'] };

export const outputSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    delimiter: { type: 'string' },
    has_header: { type: 'boolean' },
    rows: { type: 'integer', description: 'Data rows (the header not counted)' },
    bytes: { type: 'integer', description: 'Bytes read' },
    ragged_rows: { type: 'integer', description: 'Rows whose number of fields differs from the first row' },
    columns: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          index: { type: 'integer', description: '1-based position' },
          kind: {
            type: 'string',
            enum: ['number', 'text', 'empty'],
            description: 'number: some cell is a number; text: none is (no numeric results, distinct values instead); empty: no cell',
          },
          count: { type: 'integer', description: 'Non-empty cells' },
          empty: { type: 'integer', description: 'Empty (or missing) cells' },
          numeric: { type: 'integer', description: 'Cells that are numbers' },
          non_numeric: {
            type: 'object',
            description: 'Non-empty cells that are not numbers, left out of sum, average, min, max',
            properties: {
              count: { type: 'integer' },
              examples: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    row: { type: 'integer', description: 'Data row, 1-based' },
                    line: { type: 'integer', description: 'Line in the file' },
                    value: { type: 'string' },
                  },
                  required: ['row', 'line', 'value'],
                  additionalProperties: false,
                },
              },
            },
            required: ['count', 'examples'],
            additionalProperties: false,
          },
          sum: { type: 'number' },
          average: nullableNumber,
          min: nullableNumber,
          max: nullableNumber,
          stddev: { ...nullableNumber, description: 'Sample standard deviation' },
          distinct: {
            type: 'object',
            properties: {
              count: { type: 'integer', description: 'Different non-empty values (a lower bound when capped)' },
              capped: { type: 'boolean', description: 'More distinct values exist than were tracked' },
              top: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { value: { type: 'string' }, count: { type: 'integer' } },
                  required: ['value', 'count'],
                  additionalProperties: false,
                },
              },
            },
            required: ['count', 'capped', 'top'],
            additionalProperties: false,
          },
        },
        required: ['name', 'index', 'kind', 'count', 'empty', 'numeric', 'non_numeric'],
        additionalProperties: false,
      },
    },
    notes: { type: 'array', items: { type: 'string' } },
  },
  required: ['path', 'delimiter', 'has_header', 'rows', 'bytes', 'ragged_rows', 'columns', 'notes'],
  additionalProperties: false,
};
