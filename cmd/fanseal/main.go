// Command fanseal seals files and streams for many recipients, each of
// whom opens with one key agreement; it reads and writes age files too.
//
// Usage:
//
//	fanseal keygen [--suite SUITE] [--age] [-o OUTPUT]
//	fanseal keygen -y [--age] [-o OUTPUT] [INPUT]
//	fanseal encrypt (-r RECIPIENT | -R PATH | -i PATH)... [-a] [--anonymous] [-v] [-o OUTPUT] [INPUT]
//	fanseal encrypt --age (-r RECIPIENT | -R PATH | -i PATH)... [-a] [-o OUTPUT] [INPUT]
//	fanseal decrypt [-i PATH]... [-j PLUGIN]... [-o OUTPUT] [INPUT]
//	fanseal inspect [--json] [-r RECIPIENT]... [-R PATH]... [-i PATH]... [INPUT]
//	fanseal version
//
// fanseal help COMMAND explains a command, its flags and examples. The
// measuring programs are beside it: go run ./cmd/fanseal/bench measures
// fanseal's hot paths on this machine, and go run ./cmd/fanseal/sim runs
// end-to-end workloads before and after fanseal.
package main

import "github.com/fanseal/fanseal/cmd/fanseal/internal/cli"

func main() { cli.Main() }
