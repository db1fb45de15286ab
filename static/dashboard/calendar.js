// Drag a scheduled post onto another day of the calendar: this fills the post's own "Move" form
// with that day, keeping the post's time of day, and submits it. The server decides as for the
// form (a day in the past is refused with a message); the form stays the accessible path.
(function () {
  "use strict";
  let dragged = null; // the .grip being dragged: dataTransfer is unreadable during dragover

  function input(grip) {
    return grip.closest(".entry").querySelector("input[name=scheduled_at]");
  }

  function leave(cell) {
    cell.classList.remove("drop-here");
  }

  document.querySelectorAll(".grip[draggable=true]").forEach(function (grip) {
    grip.addEventListener("dragstart", function (event) {
      dragged = grip;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", grip.dataset.publish);
      grip.closest(".entry").classList.add("dragging");
    });
    grip.addEventListener("dragend", function () {
      grip.closest(".entry").classList.remove("dragging");
      document.querySelectorAll(".day.drop-here").forEach(leave);
      dragged = null;
    });
  });

  document.querySelectorAll(".day[data-day]").forEach(function (cell) {
    cell.addEventListener("dragover", function (event) {
      if (!dragged) return;
      event.preventDefault(); // this cell takes the drop
      event.dataTransfer.dropEffect = "move";
      cell.classList.add("drop-here");
    });
    cell.addEventListener("dragleave", function (event) {
      if (!cell.contains(event.relatedTarget)) leave(cell);
    });
    cell.addEventListener("drop", function (event) {
      if (!dragged) return;
      event.preventDefault();
      leave(cell);
      const field = input(dragged);
      const current = field.defaultValue; // "YYYY-MM-DDTHH:MM", in the team's zone as the page shows it
      if (current.slice(0, 10) === cell.dataset.day) return;
      field.value = cell.dataset.day + "T" + current.slice(11, 16);
      field.form.requestSubmit();
    });
  });
})();
