// Command gendb writes the root package's db_methods.go (see package gendb). Run it
// from the root package's directory, as go generate does.
package main

import (
	"log"
	"os"

	"github.com/zlite/zlite/internal/gendb"
)

func main() {
	src, err := gendb.Generate(".")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(gendb.Output, src, 0o644); err != nil {
		log.Fatal(err)
	}
}
