package postgres

// UpcomingSQL is the caps' count, for the test of its plan.
const UpcomingSQL = upcomingSQL
