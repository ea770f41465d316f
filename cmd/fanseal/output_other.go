//go:build !linux

package main

import "os"

// openUnnamed reports that this system has no unnamed files: outputs use
// named temporary files.
func openUnnamed(string) (*os.File, error) { return nil, errNoUnnamed }

// linkUnnamed is never called where openUnnamed never succeeds.
func linkUnnamed(*os.File, string, bool) error { return errNoUnnamed }
