import { Flags } from '@oclif/core';
import { WardError } from '../../../errors/ward-error.ts';
import { hashPassword } from '../../../auth/password.ts';
import { assertEnabled, requireUser, setPasswordHash, type PasswordSet } from '../../../auth/users.ts';
import { AuthCommand, passwordStdinFlag, usernameArg } from '../../auth-command.ts';
import { plural } from '../../render.ts';

export default class UsersSetPassword extends AuthCommand {
  static override description =
    "Set a user's password, read from stdin; ends the user's sessions and revokes their API tokens";
  static override examples = [
    'printf \'%s\' "$PASSWORD" | <%= config.bin %> users set-password alice --password-stdin',
    'printf \'%s\' "$PASSWORD" | <%= config.bin %> users set-password alice --password-stdin --keep-tokens',
  ];
  static override enableJsonFlag = true;
  static override args = { username: usernameArg };
  static override flags = {
    'password-stdin': passwordStdinFlag,
    'keep-tokens': Flags.boolean({
      description: "leave the user's API tokens valid (a routine change, not a password that may be known)",
      default: false,
    }),
  };

  async run(): Promise<{ username: string } & PasswordSet> {
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
    const hash = await hashPassword(await this.readPassword(args.username));
    const set = await this.operatorActing(knex).transaction((trx) =>
      setPasswordHash(trx, user.id, hash, { keepTokens: flags['keep-tokens'] }),
    );
    const tokens = flags['keep-tokens']
      ? 'API tokens kept'
      : `${plural(set.tokensRevoked, 'API token')} revoked`;
    this.log(
      `Password of ${args.username} changed; ${plural(set.sessionsEnded, 'session')} ended, ${tokens}.`,
    );
    return { username: args.username, ...set };
  }
}
