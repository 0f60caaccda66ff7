import { WardError } from '../../../errors/ward-error.ts';
import { hashPassword } from '../../../auth/password.ts';
import { assertEnabled, requireUser, setPasswordHash } from '../../../auth/users.ts';
import { AuthCommand, passwordStdinFlag, usernameArg } from '../../auth-command.ts';
import { plural } from '../../render.ts';

export default class UsersSetPassword extends AuthCommand {
  static override description =
    "Set a user's password, read from stdin; ends the user's sessions (API tokens stay valid)";
  static override examples = [
    'printf \'%s\' "$PASSWORD" | <%= config.bin %> users set-password alice --password-stdin',
  ];
  static override enableJsonFlag = true;
  static override args = { username: usernameArg };
  static override flags = { 'password-stdin': passwordStdinFlag };

  async run(): Promise<{ username: string; sessionsEnded: number }> {
    const { args, flags } = await this.parse(UsersSetPassword);
    if (!flags['password-stdin'])
      throw new WardError(
        'missing_password',
        'set-password reads the new password from stdin only, so it never appears in shell history or the process list',
        `pipe it in: printf '%s' "$PASSWORD" | ward users set-password ${args.username} --password-stdin`,
        { exitCode: 2 },
      );
    const knex = await this.authDb();
    const user = await requireUser(knex, args.username);
    assertEnabled(user);
    const sessionsEnded = await setPasswordHash(knex, user.id, await hashPassword(await this.readPassword()));
    this.log(`Password of ${args.username} changed; ${plural(sessionsEnded, 'session')} ended.`);
    return { username: args.username, sessionsEnded };
  }
}
