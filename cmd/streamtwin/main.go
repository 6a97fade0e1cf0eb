package main

import "github.com/streamtwin/streamtwin/app"

func main() { app.Main() }
