/** What `help` prints in the interactive session (session.ts): every command, and what Ctrl-C does. */
export const HELP = `Commands (Tab completes commands, tool names and argument names):
  tools                      list the tools
  describe <tool>            what a tool does and what it takes
  <tool> | call <tool>       call a tool: its arguments are asked field by field
  <tool> key=value …         call it with these arguments (missing required ones are asked)
  <tool> {"key": …}          call it with a JSON object of arguments
  history                    the calls of this session
  rerun <n>                  call number n again, with the same arguments
  read <n|uri>               read a resource link a tool returned (resources/read)
  structured                 the last result's structured content, as a tree
  help                       this text
  quit | exit | Ctrl-D       leave
Ctrl-C cancels a running call (the server is told to stop); at the prompt, Ctrl-C twice leaves.
Destructive tools show their arguments and wait for your yes before anything is sent.
`;
