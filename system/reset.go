package system

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"termin/migrations/pglocal"
	"termin/shared/envconf"
)

// Reset returns a stopped system's data to its first state, wherever the
// chain of Start placed it: it drops the database DATABASE_URL names, else
// the database DatabaseName on the local server when that server takes the
// login, and removes the data directory (the private cluster, the embedded
// NATS store, the local mailbox, the tokens). The next Start creates,
// migrates and seeds them afresh. say is told each thing dropped, in words.
// A NATS server at NATS_URL keeps its streams: it is not the system's to
// empty.
func Reset(ctx context.Context, cfg Config, say func(string)) error {
	if err := dropRunDatabase(ctx, cfg, say); err != nil {
		return err
	}
	pg := filepath.Join(cfg.DataDir, "pg")
	if stopped, err := pglocal.StopDir(ctx, pg); err != nil {
		return err
	} else if stopped {
		say("stopped the private PostgreSQL cluster under " + pg)
	}
	if _, err := os.Stat(cfg.DataDir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.RemoveAll(cfg.DataDir); err != nil {
		return fmt.Errorf("remove %s: %w", cfg.DataDir, err)
	}
	say(fmt.Sprintf("removed %s: the private PostgreSQL cluster (when there was one), the message queue's store, the local mailbox and the tokens", cfg.DataDir))
	return nil
}

// dropRunDatabase drops the database Start would use on a server of its
// own choosing (DATABASE_URL, else the local server); the private cluster
// goes with the data directory.
func dropRunDatabase(ctx context.Context, cfg Config, say func(string)) error {
	target, where := cfg.DatabaseURL, "as DATABASE_URL says"
	if target == "" {
		local := cmp.Or(cfg.LocalURL, pglocal.LocalURL)
		if err := pglocal.Probe(ctx, local); err != nil {
			say("no server on " + hostOf(local) + " takes make run's login; its database lives in the private cluster")
			return nil
		}
		var err error
		if target, err = pglocal.WithDatabase(local, DatabaseName); err != nil {
			return err
		}
		where = "the server make run finds there"
	}
	dropped, err := pglocal.DropDatabase(ctx, target)
	if err != nil {
		return fmt.Errorf("%w (to empty it by hand: psql '%s' -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public')",
			err, envconf.RedactURLs(target))
	}
	what := fmt.Sprintf("database %s on the server at %s (%s)", databaseOf(target), hostOf(target), where)
	if !dropped {
		say("no " + what + " to drop")
		return nil
	}
	say("dropped " + what + ": every appointment, patient, doctor and working plan in it")
	return nil
}
