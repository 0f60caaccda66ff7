import { Args } from '@oclif/core';
import { revokeApiToken } from '../../../auth/api-tokens.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { AuthCommand } from '../../auth-command.ts';

export default class TokensRevoke extends AuthCommand {
  static override description = 'Revoke an API token; running backends refuse it from the next request';
  static override examples = ['<%= config.bin %> tokens revoke 3'];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({
      description: 'the token id, from `ward tokens list`',
      required: true,
      parse: async (input) => {
        if (/^[1-9]\d{0,9}$/.test(input) && Number(input) <= 2 ** 31 - 1) return input;
        throw new WardError(
          'invalid_token_id',
          `${JSON.stringify(input)} is not a token id`,
          'token ids are the numbers `ward tokens list` shows',
          { exitCode: 2 },
        );
      },
    }),
  };

  async run(): Promise<{ id: number; changed: boolean }> {
    const { args } = await this.parse(TokensRevoke);
    const id = Number(args.id);
    const knex = await this.authDb();
    const result = await this.operatorActing(knex).transaction((trx) => revokeApiToken(trx, id));
    if (result === 'unknown')
      throw new WardError(
        'unknown_token',
        `there is no API token ${id}`,
        'list tokens with `ward tokens list`',
      );
    this.log(
      result === 'revoked' ? `Token ${id} is revoked.` : `Token ${id} was already revoked; nothing changed.`,
    );
    return { id, changed: result === 'revoked' };
  }
}
