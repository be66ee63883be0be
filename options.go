package zlite

// Option configures a [DB] at [New]. Options are applied in order; a later option
// overrides an earlier one that sets the same field.
type Option func(*config)

// config holds the settings a DB is created with. Every field's zero value means
// "the default", so New() with no options is Redis's default configuration.
type config struct{}

// newConfig applies opts to the defaults.
func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}
