import type { Hook } from '@oclif/core';

/** An unknown command is bad usage (exit 2), and the message says where the list of commands is. */
const hook: Hook<'command_not_found'> = async function (options) {
  const typed = options.id.split(':').join(' ');
  this.error(`unknown command "${typed}"\nhint: run \`${options.config.bin} --help\` to list the commands`, {
    exit: 2,
  });
};

export default hook;
