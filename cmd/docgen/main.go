package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/streamtwin/streamtwin/app"
	"github.com/streamtwin/streamtwin/internal/docgen"
)

func main() {
	if os.Getenv(docgen.MainEnv) == "1" {
		os.Args = append([]string{"streamtwin"}, os.Args[1:]...)
		app.Main()
		return
	}
	check := flag.Bool("check", false, "only report blocks and figures that differ from what would be written; exit 1 if any")
	figuresOnly := flag.Bool("figures", false, "only the figures of docs/figures (make figures), not the text blocks")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	os.Exit(run(*root, *check, *figuresOnly))
}

func run(root string, check, figuresOnly bool) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		return 1
	}
	c, err := docgen.NewContext(root, docgen.Reexec(exe))
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		return 1
	}
	defer c.Close()
	var drifts []docgen.Drift
	if figuresOnly {
		drifts, err = docgen.RunFigures(c, docgen.Figures(), !check)
	} else {
		drifts, err = docgen.Run(c, docgen.Blocks(), docgen.Figures(), !check)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		return 1
	}
	for _, d := range drifts {
		if check {
			fmt.Println(d)
		} else {
			fmt.Println("wrote", d.File, d.Block)
		}
	}
	if check && len(drifts) > 0 {
		return 1
	}
	if !check && len(drifts) == 0 {
		fmt.Println("docs: nothing changed")
	}
	return 0
}
