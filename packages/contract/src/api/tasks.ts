import { z } from 'zod';

/** An async task (Suno and others) as new-api's console reads it; times are Unix seconds. */
export const asyncTaskSchema = z.strictObject({
  id: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  task_id: z.string(),
  platform: z.string(),
  user_id: z.number().int(),
  username: z.string().optional().describe('Administrators’ list only.'),
  group: z.string(),
  channel_id: z.number().int(),
  quota: z.number(),
  action: z.string(),
  status: z.string(),
  fail_reason: z.string(),
  submit_time: z.number().int(),
  start_time: z.number().int(),
  finish_time: z.number().int(),
  progress: z.string(),
  properties: z.unknown().describe('What the task was submitted with (JSON).'),
  data: z.unknown().describe('What the platform answered (JSON: Suno clips or lyrics).'),
});
export type AsyncTask = z.output<typeof asyncTaskSchema>;

/** A Midjourney task as new-api's model.Midjourney serialises it; submit, start and finish times are Unix milliseconds. */
export const drawingTaskSchema = z.strictObject({
  id: z.number().int(),
  code: z.number().int(),
  user_id: z.number().int(),
  action: z.string(),
  mj_id: z.string(),
  prompt: z.string(),
  prompt_en: z.string(),
  description: z.string(),
  state: z.string(),
  submit_time: z.number().int(),
  start_time: z.number().int(),
  finish_time: z.number().int(),
  image_url: z.string(),
  video_url: z.string(),
  video_urls: z.string(),
  status: z.string(),
  progress: z.string().describe('Text such as "45%".'),
  fail_reason: z.string(),
  channel_id: z.number().int().describe('0 in a user’s own list.'),
  quota: z.number(),
  buttons: z.string().describe('JSON text of the actions the image offers.'),
  properties: z.string().describe("JSON text, '' when empty."),
});
export type DrawingTask = z.output<typeof drawingTaskSchema>;
