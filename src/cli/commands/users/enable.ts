import { enableUser, requireUser } from '../../../auth/users.ts';
import { AuthCommand, usernameArg } from '../../auth-command.ts';

export default class UsersEnable extends AuthCommand {
  static override description =
    'Let a disabled user sign in again with the password they had; API tokens revoked by `users disable` stay revoked';
  static override examples = ['<%= config.bin %> users enable bob'];
  static override enableJsonFlag = true;
  static override args = { username: usernameArg };

  async run(): Promise<{ username: string; changed: boolean }> {
    const { args } = await this.parse(UsersEnable);
    const knex = await this.authDb();
    const user = await requireUser(knex, args.username);
    const changed = await this.operatorActing(knex).transaction((trx) => enableUser(trx, user));
    this.log(
      changed
        ? `${args.username} is enabled and can sign in with the password they had; create new API tokens with \`ward tokens create --user ${args.username}\` if needed.`
        : `${args.username} is not disabled; nothing changed.`,
    );
    return { username: args.username, changed };
  }
}
