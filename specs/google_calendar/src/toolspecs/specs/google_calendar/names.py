"""What agents call the Calendar tools' arguments (``summary`` for ``title``, ...)."""

from __future__ import annotations

from typing import Final

# load_data
LOAD_DATA: Final = {
    "max_results": "number_of_results",
    "limit": "number_of_results",
    "n": "number_of_results",
    "from_date": "start_date",
    "start": "start_date",
    "to_date": "end_date",
    "end": "end_date",
    "search": "query",
    "q": "query",
}

# create_event
CREATE_EVENT: Final = {
    "summary": "title",
    "name": "title",
    "start": "start_datetime",
    "end": "end_datetime",
    "start_time": "start_datetime",
    "end_time": "end_datetime",
    "guests": "attendees",
    "invitees": "attendees",
    "rrule": "recurrence",
    "repeat": "recurrence",
    "time_zone": "timezone",
}

# update_event
UPDATE_EVENT: Final = {
    "id": "event_id",
    "summary": "title",
    "start": "start_datetime",
    "end": "end_datetime",
    "guests": "attendees",
    "rrule": "recurrence",
    "apply_to": "scope",
    "occurrences": "scope",
}

# delete_event
DELETE_EVENT: Final = {"id": "event_id", "apply_to": "scope", "occurrences": "scope"}

# search_events
SEARCH_EVENTS: Final = {
    "q": "query",
    "search": "query",
    "text": "query",
    "from_date": "start_date",
    "start": "start_date",
    "to_date": "end_date",
    "end": "end_date",
    "max_results": "number_of_results",
    "limit": "number_of_results",
}

# respond_to_event
RESPOND_TO_EVENT: Final = {
    "id": "event_id",
    "answer": "response",
    "rsvp": "response",
    "status": "response",
    "response_status": "response",
    "note": "comment",
    "message": "comment",
    "notify": "notify_organizer",
    "notify_attendees": "notify_organizer",
}

# find_free_time
FIND_FREE_TIME: Final = {
    "start": "start_datetime",
    "end": "end_datetime",
    "from": "start_datetime",
    "to": "end_datetime",
    "emails": "attendees",
    "duration": "min_minutes",
    "minutes": "min_minutes",
}
