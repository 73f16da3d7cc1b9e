#!/bin/sh
# make test-clock: the date- and time-sensitive tests at chosen instants in
# Europe/Berlin, whatever the hour this runs at. Each test stack's clock
# starts at TEST_CLOCK (shared/clocktest) and runs from there at the wall
# clock's pace, so a test placed at 06:59:59 sees the 07:00 opening pass.
# The test binary is built once; each instant runs it again.
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
bin=$(mktemp -d)/system.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
echo "test-clock: building the system tests"
(cd system && $GO test -c -o "$bin" .)

# The instants: the small hours, just before and just after the 07:00
# opening, a Sunday, the skipped hour of the last Sunday of March and both
# passes of the doubled hour of the last Sunday of October, the turn of the
# year, and 29 February.
instants="
2027-01-13T00:30:00+01:00
2027-01-13T03:00:00+01:00
2027-01-13T06:59:59+01:00
2027-01-13T07:00:00.5+01:00
2027-01-17T12:00:00+01:00
2027-03-28T01:59:30+01:00
2027-10-31T02:30:00+02:00
2027-10-31T02:30:00+01:00
2027-12-31T23:59:50+01:00
2028-02-29T10:00:00+01:00
"
# Tests whose outcome depends on the date or the hour: plans and the slots
# they write, the slot list of a day, openings, holds, moves, the waitlist,
# erasure of upcoming appointments. A new test of that kind belongs here.
tests='TestDemoDoctorsComeAsPlans|TestDoctorsAndTheSlotList|TestScheduleAYearAhead|TestSchedulePutMakesSlots'\
'|TestInsuranceThroughHTTP|TestHoldAndConfirmThroughHTTP|TestHoldExpiredThroughHTTP|TestOverlappingAppointmentThroughHTTP'\
'|TestLongerVisitThroughHTTP|TestAlternativesTakeTheFirstFreeSlot|TestOnePlacePerPatientInAnOpening'\
'|TestExportAndErasureEndToEnd|TestBlockRacesBookingsAndUnblockOffersTheWaitlist|TestRunRefusesStrangers'\
'|TestWaitlistThroughGatewayAndBooker|TestFreedPlaceIsOfferedToTheWaitlistInTurn|TestOpeningIsWarmedBeforeItsFirstClicks'\
'|TestBookingAPIStatusCodes|TestAppointmentReadAndCancel|TestRescheduleThroughTheQueue|TestTwoGatewaysKeepOneLine'\
'|TestReadsByOthersAreLogged'
n=$(echo "$instants" | grep -c .)
i=0
failed=""
for at in $instants; do
	i=$((i + 1))
	echo "test-clock: $i/$n at $at"
	if ! (cd system && TEST_CLOCK="$at" "$bin" -test.run "^($tests)\$" -test.count=1 -test.timeout=10m); then
		failed="$failed $at"
	fi
done
if [ -n "$failed" ]; then
	echo "test-clock: failed at:$failed"
	exit 1
fi
echo "test-clock: every instant passed ($n)"
