package main

import (
	"github.com/streamtwin/streamtwin/app"
	"github.com/streamtwin/streamtwin/examples/go-policy/loadci"
)

func main() {
	loadci.Register()
	app.Main()
}
