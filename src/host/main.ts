/** Entry point of `npm start`: the in-process local server. Being built (hosts issue). */
console.log('Signalbox: the local server is not built yet (see the hosts issue).');
