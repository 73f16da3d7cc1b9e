package scenario

// SeedDirectory and SearchPath are the day's directory and searches, for
// the black-box tests.
var (
	SeedDirectory = seedDirectory
	SearchPath    = searchPath
)
