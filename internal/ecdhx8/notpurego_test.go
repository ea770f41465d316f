//go:build !purego

package ecdhx8

// puregoBuild says whether the tests run in the purego build.
const puregoBuild = false
