import { summarise, type StatusSummary } from '../../../planner/overview.ts';
import { readModuleRows } from '../../../db/modules.ts';
import { ModuleCommand } from '../../module-command.ts';

export default class ModulesStatus extends ModuleCommand {
  static override description = 'Count modules per state and list the pending and errored ones';
  static override examples = ['<%= config.bin %> modules status'];
  static override enableJsonFlag = true;

  async run(): Promise<StatusSummary> {
    const [inventory, rows] = await Promise.all([this.inventory(), this.db().then(readModuleRows)]);
    const summary = summarise(inventory, rows);
    this.log(renderStatus(summary));
    return summary;
  }
}

function renderStatus(summary: StatusSummary): string {
  const lines = Object.entries(summary.counts).map(([state, count]) => `${state.padEnd(13)} ${count}`);
  const section = (title: string, items: string[]) => {
    if (items.length > 0) lines.push('', `${title}:`, ...items.map((item) => `  ${item}`));
  };
  section(
    'Pending (applied at the next restart)',
    summary.pending.map((m) => `${m.name} (${m.state})`),
  );
  section(
    'Errored',
    summary.errored.map((m) => `${m.name} (${m.state}): ${m.errorMessage}`),
  );
  section(
    'Upgrade available (`ward modules upgrade <name>`)',
    summary.upgradable.map((m) => `${m.name} ${m.version} -> ${m.diskVersion}`),
  );
  return lines.join('\n');
}
