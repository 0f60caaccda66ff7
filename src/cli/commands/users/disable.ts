import { disableUser, requireUser } from '../../../auth/users.ts';
import { AuthCommand, usernameArg } from '../../auth-command.ts';
import { plural } from '../../render.ts';

export default class UsersDisable extends AuthCommand {
  static override description =
    "Stop a user from signing in (someone who left, a leaked password): ends the user's sessions and revokes the user's API tokens; running backends refuse them from the next request";
  static override examples = ['<%= config.bin %> users disable bob'];
  static override enableJsonFlag = true;
  static override args = { username: usernameArg };

  async run(): Promise<{ username: string; changed: boolean; sessionsEnded: number; tokensRevoked: number }> {
    const { args } = await this.parse(UsersDisable);
    const knex = await this.authDb();
    const user = await requireUser(knex, args.username);
    const done = await this.operatorActing(knex).transaction((trx) => disableUser(trx, user));
    if (done === null) {
      this.log(`${args.username} is already disabled; nothing changed.`);
      return { username: args.username, changed: false, sessionsEnded: 0, tokensRevoked: 0 };
    }
    this.log(
      `${args.username} is disabled: ${plural(done.sessionsEnded, 'session')} ended, ${plural(done.tokensRevoked, 'API token')} revoked. ` +
        `Undo with \`ward users enable ${args.username}\`.`,
    );
    return { username: args.username, changed: true, ...done };
  }
}
