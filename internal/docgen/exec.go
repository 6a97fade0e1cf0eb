package docgen

import (
	"os"
	"os/exec"
)

// MainEnv, set to 1 in a re-executed binary's environment, makes a program
// that embeds app.Main (cmd/docgen, the docs test) run as streamtwin, so
// the docs are made by the code under test rather than by an older binary
// on the PATH.
const MainEnv = "STREAMTWIN_MAIN"

// Reexec is a Context's Command that runs exe as streamtwin (see MainEnv).
func Reexec(exe string) func(args ...string) *exec.Cmd {
	return func(args ...string) *exec.Cmd {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), MainEnv+"=1")
		return cmd
	}
}
