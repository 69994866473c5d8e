// KataGo's C++ iterLadders (cpp/neuralnet/nninputs.cpp), three ways, for
// checks/ladder_shared_copy.py: on one shared board copy (as KataGo), on a fresh copy per
// chain, and on fresh copies with the board's simple-ko point cleared. Built against
// the KataGo tarball in ../shared/oracles/katago-cpp (see ladder_shared_copy.py, `--cpp`).
//
// Input, one position a line: "SIZE" then tokens "s C X Y" (setStone, C 1 black / 2
// white) and "p C X Y" (play, when legal), x from the left, y from the top.
// Output, three lines a position: "shared", "fresh", "cleared", each followed by the
// laddered chains as " X,Y[C W1 W2]" (the first stone of the chain in row order, its
// colour, the attacker's working moves) and, on the shared line, " LEAK@X,Y" after each
// search that left the copy's ko point different from the board's.
#include "game/board.h"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace std;

static string ladders(const Board& original, bool shared, bool clearKo) {
  Board board(original);
  if(clearKo)
    board.clearSimpleKoLoc();
  vector<Loc> heads;
  vector<bool> values;
  Board copy(board);
  vector<Loc> buf, working;
  ostringstream out;
  for(int y = 0; y < board.y_size; y++) {
    for(int x = 0; x < board.x_size; x++) {
      Loc loc = Location::getLoc(x, y, board.x_size);
      Color stone = board.colors[loc];
      if(stone != P_BLACK && stone != P_WHITE)
        continue;
      int libs = board.getNumLiberties(loc);
      if(libs != 1 && libs != 2)
        continue;
      Loc head = board.chain_head[loc];
      bool solved = false;
      for(Loc h: heads)
        solved = solved || h == head;
      if(solved)
        continue;
      Board fresh(board);
      Board& c = shared ? copy : fresh;
      working.clear();
      bool laddered = libs == 1 ? c.searchIsLadderCaptured(loc, true, buf)
                                : c.searchIsLadderCapturedAttackerFirst2Libs(loc, buf, working);
      heads.push_back(head);
      values.push_back(laddered);
      if(laddered) {
        out << " " << x << "," << y << "[" << (int)stone;
        for(Loc w: working)
          out << " " << Location::getX(w, board.x_size) << "," << Location::getY(w, board.x_size);
        out << "]";
      }
      if(shared && copy.ko_loc != board.ko_loc)
        out << " LEAK@" << x << "," << y;
    }
  }
  return out.str();
}

int main() {
  Board::initHash();
  string line;
  while(getline(cin, line)) {
    istringstream in(line);
    int size;
    if(!(in >> size))
      continue;
    Board b(size, size);
    string op;
    int c, x, y;
    while(in >> op >> c >> x >> y) {
      Loc loc = Location::getLoc(x, y, size);
      if(op == "s")
        b.setStone(loc, (Color)c);
      else if(b.isLegal(loc, (Player)c, false))
        b.playMoveAssumeLegal(loc, (Player)c);
    }
    cout << "shared" << ladders(b, true, false) << "\n"
         << "fresh" << ladders(b, false, false) << "\n"
         << "cleared" << ladders(b, false, true) << "\n"
         << flush;
  }
}
