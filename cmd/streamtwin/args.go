package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// flagsFirst lets flags follow positional arguments (`run demo.yaml --seed 2`),
// which urfave/cli v2 would otherwise treat as more positionals: it moves
// every flag of the selected command, with its value, before the positionals.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
	i := 1
	var cmd *cli.Command
	for i < len(args) {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd = next
		out = append(out, args[i])
		cmds = cmd.Subcommands
		i++
	}
	if cmd == nil {
		return args
	}
	var flags, pos []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue(cmd, name) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(append(out, flags...), pos...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
