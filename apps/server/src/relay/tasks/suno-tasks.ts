import type { OptionService } from '../../domain/options/option-service.js';
import { toSunoTaskDto, type SunoTaskDto } from '../../domain/tasks/suno-task-state.js';
import type { TaskRepository } from '../../domain/tasks/task-repository.js';
import type { SunoClient } from '../../providers/suno/suno-client.js';
import type { RelayCaller } from '../relay-caller.js';
import { SunoAdaptor, taskError, type SunoSubmitInput } from './suno-adaptor.js';
import type { RoutedNote, TaskLifecycle } from './task-lifecycle.js';

export interface SunoTasksDeps {
  options: OptionService;
  lifecycle: TaskLifecycle;
  repository: TaskRepository;
  client: SunoClient;
}

/** The Suno relay (new-api's relay_task.go with the Suno task adaptor): submits through the task lifecycle, fetches from the `tasks` table. */
export class SunoTasks {
  readonly adaptor: SunoAdaptor;

  constructor(private readonly deps: SunoTasksDeps) {
    this.adaptor = new SunoAdaptor(deps.options, deps.repository, deps.client);
  }

  /**
   * POST /suno/submit/{music,lyrics}: the upstream's acceptance is charged and recorded as a task,
   * its answer ({code:'success', message, data:<task id>}) passed back.
   */
  async submit(caller: RelayCaller, input: SunoSubmitInput, routed?: RoutedNote): Promise<unknown> {
    const { submitted } = await this.deps.lifecycle.submit(this.adaptor, caller, input, routed);
    return submitted.answer;
  }

  /** GET /suno/fetch/{id}: the caller's own task. */
  async fetchOne(caller: RelayCaller, taskId: string): Promise<SunoTaskDto> {
    const row = await this.deps.repository.byTaskId(caller.user.id, taskId);
    if (!row) throw taskError('task_not_exist', 'task_not_exist', 400);
    return toSunoTaskDto(row);
  }

  /** POST /suno/fetch {ids}: those of the caller's own tasks. */
  async fetchMany(caller: RelayCaller, ids: readonly string[]): Promise<SunoTaskDto[]> {
    const rows = await this.deps.repository.byTaskIds(caller.user.id, ids);
    return rows.map(toSunoTaskDto);
  }
}
