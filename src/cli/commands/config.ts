import { Flags } from '@oclif/core';
import { configReport, entrySource, type ConfigReport } from '../../config/report.ts';
import { WardCommand } from '../base.ts';
import { table } from '../render.ts';

export default class Config extends WardCommand {
  static override description =
    'Show every setting with the value Ward uses and where it came from: the environment, a settings file and line (<storage>/ward.env, then .env beside package.json), or the default';
  static override examples = [
    '<%= config.bin %> config',
    '<%= config.bin %> config --json',
    '<%= config.bin %> config --show-secrets',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    'show-secrets': Flags.boolean({
      description: 'print the database password and other secrets instead of ***',
      default: false,
    }),
  };

  async run(): Promise<ConfigReport> {
    const { flags } = await this.parse(Config);
    const report = configReport(this.settings, { showSecrets: flags['show-secrets'] });
    this.log(renderConfig(report));
    return report;
  }
}

/** The warnings are not repeated: every command prints them on stderr as it starts. */
function renderConfig(report: ConfigReport): string {
  const settings = table(
    ['SETTING', 'VALUE', 'SOURCE'],
    report.settings.map((entry) => [entry.name, entry.value ?? '-', entrySource(entry)]),
  );
  const files = report.files.map((file) => `  ${file.path}${file.found ? '' : ' (none)'}`);
  return `${settings}\n\nSettings files, after the environment (the first to set a value wins):\n${files.join('\n')}`;
}
